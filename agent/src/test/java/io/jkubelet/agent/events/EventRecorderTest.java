package io.jkubelet.agent.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Events the {@link BroadcastRecorder} builds, and the recorder interface's defaults. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EventRecorderTest {
  private final FakeClock clock = new FakeClock(Instant.parse("2026-03-04T05:06:07.891Z"));
  private final Pod pod = TestEvents.pod("ns1", "web", "2b7c-uid");

  @Test
  void aPodEventHasTheUpstreamFields() {
    Event e =
        TestEvents.recorder(clock)
            .make(Occurrence.now(Refs.pod(pod), EventType.Normal, "Pulled", "done"));

    assertThat(e.getApiVersion()).isEqualTo("v1");
    assertThat(e.getKind()).isEqualTo("Event");
    assertThat(e.getMetadata().getNamespace()).isEqualTo("ns1");
    assertThat(e.getMetadata().getName()).matches("web\\.[0-9a-f]{16}");
    long nanos =
        Instant.parse("2026-03-04T05:06:07.891Z").getEpochSecond() * 1_000_000_000L + 891_000_000L;
    assertThat(e.getMetadata().getName()).isEqualTo("web." + String.format("%016x", nanos));
    assertThat(e.getInvolvedObject().getKind()).isEqualTo("Pod");
    assertThat(e.getInvolvedObject().getUid()).isEqualTo("2b7c-uid");
    assertThat(e.getInvolvedObject().getFieldPath()).isNull();
    assertThat(e.getReason()).isEqualTo("Pulled");
    assertThat(e.getMessage()).isEqualTo("done");
    assertThat(e.getType()).isEqualTo("Normal");
    assertThat(e.getSource().getComponent()).isEqualTo("kubelet");
    assertThat(e.getSource().getHost()).isEqualTo("node1");
    assertThat(e.getFirstTimestamp()).isEqualTo("2026-03-04T05:06:07Z");
    assertThat(e.getLastTimestamp()).isEqualTo("2026-03-04T05:06:07Z");
    assertThat(e.getCount()).isEqualTo(1);
    assertThat(e.getReportingComponent()).isEqualTo("kubelet");
    assertThat(e.getReportingInstance()).isEqualTo("node1");
    assertThat(e.getMetadata().getAnnotations()).isNullOrEmpty();
  }

  @Test
  void aContainerEventKeepsItsFieldPath() {
    Event e =
        TestEvents.recorder(clock)
            .make(
                Occurrence.now(
                    Refs.container(pod, "init", true), EventType.Warning, "Failed", "x"));
    assertThat(e.getInvolvedObject().getFieldPath()).isEqualTo("spec.initContainers{init}");
    assertThat(e.getInvolvedObject().getUid()).isEqualTo("2b7c-uid");
    assertThat(e.getType()).isEqualTo("Warning");
  }

  @Test
  void aNodeEventLandsInDefaultWithTheNodeNameAsUid() {
    Event e =
        TestEvents.recorder(clock)
            .make(
                Occurrence.now(
                    Refs.node("node1"), EventType.Normal, "Starting", "Starting kubelet."));
    assertThat(e.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(e.getMetadata().getName()).startsWith("node1.");
    assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
    assertThat(e.getInvolvedObject().getUid()).isEqualTo("node1");
    assertThat(e.getInvolvedObject().getNamespace()).isNull();
  }

  @Test
  void namesAreUniqueWhenTheClockStandsStill() {
    BroadcastRecorder r = TestEvents.recorder(clock);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      names.add(
          r.make(Occurrence.now(Refs.pod(pod), EventType.Normal, "A", "b"))
              .getMetadata()
              .getName());
    }
    assertThat(names).doesNotHaveDuplicates().allMatch(n -> n.matches("web\\.[0-9a-f]{16}"));
  }

  @Test
  void recordsThroughTheBroadcasterWithPastAndAnnotatedEvents() {
    List<Event> seen = new CopyOnWriteArrayList<>();
    EventBroadcaster b = EventBroadcaster.create().addWatcher("test", seen::add);
    BroadcastRecorder r = new BroadcastRecorder(clock, "node1", b);
    b.start();
    try {
      r.eventf(Refs.pod(pod), EventType.Normal, "Created", "Created container %s", "c1");
      r.pastEventf(
          Refs.pod(pod),
          Instant.parse("2026-03-04T04:00:00Z"),
          EventType.Warning,
          "BackOff",
          "%d",
          3);
      clock.step(Duration.ofSeconds(2));
      r.annotatedEventf(Refs.pod(pod), Map.of("a", "b"), EventType.Normal, "Pulled", "img %s", "x");

      await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);
    } finally {
      b.stop();
    }
    assertThat(seen.get(0).getMessage()).isEqualTo("Created container c1");
    assertThat(seen.get(1).getFirstTimestamp()).isEqualTo("2026-03-04T04:00:00Z");
    assertThat(seen.get(1).getLastTimestamp()).isEqualTo("2026-03-04T04:00:00Z");
    assertThat(seen.get(1).getMessage()).isEqualTo("3");
    assertThat(seen.get(2).getMetadata().getAnnotations()).containsExactly(Map.entry("a", "b"));
    assertThat(seen.get(2).getLastTimestamp()).isEqualTo("2026-03-04T05:06:09Z");
  }

  @Test
  void theDefaultsReachALambdaRecordersEvent() {
    List<String> got = new ArrayList<>();
    EventRecorder r = (o, t, reason, msg) -> got.add(t + " " + reason + " " + msg);
    ObjectReference ref = Refs.pod(pod);
    r.pastEventf(ref, Instant.EPOCH, EventType.Warning, "BackOff", "x%d", 1);
    r.annotatedEventf(ref, Map.of("k", "v"), EventType.Normal, "Pulled", "y%s", "z");
    assertThat(got).containsExactly("Warning BackOff x1", "Normal Pulled yz");
  }
}
