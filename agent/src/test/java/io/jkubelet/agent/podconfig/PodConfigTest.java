package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.podconfig.PodUpdate.Op;
import io.jkubelet.agent.util.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PodConfigTest {
  private final List<PodUpdate> updates = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder =
      (ObjectReference o, EventType t, String reason, String msg) ->
          events.add(reason + ": " + msg);
  private final PodConfig config = new PodConfig(new FakeClock(), recorder, updates::add);

  private List<Op> ops() {
    return updates.stream().map(PodUpdate::op).toList();
  }

  @Test
  void newPodsAreAddedWithSourceAndSeenAnnotations() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    file.accept(List.of(TestPods.simple("u1", "a", "c")));

    assertThat(ops()).containsExactly(Op.ADD);
    Pod added = updates.get(0).pods().get(0);
    assertThat(added.getMetadata().getAnnotations())
        .containsEntry(Annotations.CONFIG_SOURCE, "file")
        .containsEntry(Annotations.CONFIG_SEEN, "2026-01-01T00:00:00Z");
    assertThat(updates.get(0).source()).isEqualTo(Source.FILE);
  }

  @Test
  void theSameSetAgainChangesNothing() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    file.accept(List.of(TestPods.simple("u1", "a", "c")));
    file.accept(List.of(TestPods.simple("u1", "a", "c")));
    assertThat(ops()).containsExactly(Op.ADD);
  }

  @Test
  void aSpecChangeIsAnUpdateAndKeepsFirstSeen() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    file.accept(List.of(TestPods.simple("u1", "a", "c")));
    file.accept(List.of(TestPods.simple("u1", "a", "c", "d")));
    assertThat(ops()).containsExactly(Op.ADD, Op.UPDATE);
    assertThat(updates.get(1).pods().get(0).getSpec().getContainers()).hasSize(2);
  }

  @Test
  void aLabelChangeIsAnUpdateButALocalAnnotationChangeIsNot() {
    Consumer<List<Pod>> api = config.channel(Source.API);
    Pod p = TestPods.simple("u1", "a", "c");
    api.accept(List.of(p));
    Pod seenChanged =
        new PodBuilder(p)
            .editMetadata()
            .addToAnnotations(Annotations.CONFIG_SEEN, "x")
            .endMetadata()
            .build();
    api.accept(List.of(seenChanged));
    assertThat(ops()).containsExactly(Op.ADD);
    Pod labelled = new PodBuilder(p).editMetadata().addToLabels("k", "v").endMetadata().build();
    api.accept(List.of(labelled));
    assertThat(ops()).containsExactly(Op.ADD, Op.UPDATE);
  }

  @Test
  void aStatusChangeAloneIsAReconcile() {
    Consumer<List<Pod>> api = config.channel(Source.API);
    Pod p = TestPods.simple("u1", "a", "c");
    api.accept(List.of(p));
    api.accept(List.of(new PodBuilder(p).withNewStatus().withPhase("Running").endStatus().build()));
    assertThat(ops()).containsExactly(Op.ADD, Op.RECONCILE);
  }

  @Test
  void aDeletionTimestampIsADelete() {
    Consumer<List<Pod>> api = config.channel(Source.API);
    Pod p = TestPods.simple("u1", "a", "c");
    api.accept(List.of(p));
    api.accept(
        List.of(
            new PodBuilder(p)
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:05Z")
                .withDeletionGracePeriodSeconds(5L)
                .endMetadata()
                .build()));
    assertThat(ops()).containsExactly(Op.ADD, Op.DELETE);
  }

  @Test
  void aPodThatVanishesFromItsSourceIsRemoved() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    file.accept(List.of(TestPods.simple("u1", "a", "c"), TestPods.simple("u2", "b", "c")));
    file.accept(List.of(TestPods.simple("u2", "b", "c")));
    assertThat(ops()).containsExactly(Op.ADD, Op.REMOVE);
    assertThat(updates.get(1).pods())
        .extracting(p -> p.getMetadata().getUid())
        .containsExactly("u1");
  }

  @Test
  void sourcesAreMergedIndependently() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    Consumer<List<Pod>> http = config.channel(Source.HTTP);
    file.accept(List.of(TestPods.simple("u1", "a", "c")));
    http.accept(List.of(TestPods.simple("u2", "b", "c")));
    // An empty set from one source removes only its own pods.
    http.accept(List.of());
    assertThat(ops()).containsExactly(Op.ADD, Op.ADD, Op.REMOVE);
    assertThat(updates.get(2).source()).isEqualTo(Source.HTTP);
    assertThat(updates.get(2).pods())
        .extracting(p -> p.getMetadata().getUid())
        .containsExactly("u2");
  }

  @Test
  void allSourcesAreSeenOnlyAfterEachHasSentOnce() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    Consumer<List<Pod>> http = config.channel(Source.HTTP);
    assertThat(config.seenAllSources()).isFalse();
    file.accept(List.of());
    assertThat(config.seenAllSources()).isFalse();
    http.accept(List.of());
    assertThat(config.seenAllSources()).isTrue();
  }

  @Test
  void aDuplicateNameIsRejectedAndThePodAlreadyKnownKeepsIt() {
    Consumer<List<Pod>> file = config.channel(Source.FILE);
    Pod first = TestPods.simple("u1", "a", "c");
    file.accept(List.of(first));
    Pod impostor = TestPods.simple("u9", "a", "other");
    // The newcomer comes first in the set, yet the incumbent wins.
    file.accept(List.of(impostor, first));

    assertThat(ops()).containsExactly(Op.ADD);
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith("FailedValidation: ")
        .contains("duplicate pod name");

    // The next rescan finds the same duplicate: it is not reported again.
    file.accept(List.of(impostor, first));
    assertThat(events).hasSize(1);
    // Once resolved and back, it is reported again.
    file.accept(List.of(first));
    file.accept(List.of(first, impostor));
    assertThat(events).hasSize(2);
  }
}
