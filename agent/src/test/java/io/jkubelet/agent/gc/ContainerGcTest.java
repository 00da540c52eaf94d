package io.jkubelet.agent.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.kuberuntime.Configs;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link ContainerGc} on {@link FakeRuntime}, each container created a minute after the one before:
 * which dead containers and sandboxes each policy keeps.
 */
class ContainerGcTest {
  private static final String IMAGE = "jkubelet/busybox:1.35";
  private static final String PAUSE = "k8s.gcr.io/pause:3.2";

  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime = new FakeRuntime(clock, IMAGE, PAUSE);
  private final States states = new States();
  private int restarts;
  private final List<String> events = new ArrayList<>();

  /** Pod states set by hand. */
  private static final class States implements PodStates {
    final Set<String> deleted = new HashSet<>();
    final Set<String> terminated = new HashSet<>();
    final Set<String> busy = new HashSet<>();
    boolean ready = true;

    @Override
    public boolean deleted(String uid) {
      return deleted.contains(uid);
    }

    @Override
    public boolean terminated(String uid) {
      return terminated.contains(uid) || deleted.contains(uid);
    }

    @Override
    public boolean busy(String uid) {
      return busy.contains(uid);
    }

    @Override
    public boolean allSourcesReady() {
      return ready;
    }
  }

  private ContainerGc gc(int perContainer, int max, Duration minAge) {
    return new RealContainerGc(
        new RealContainerGc.Deps(
            runtime,
            null,
            new ContainerGcPolicy(minAge, perContainer, max),
            states,
            clock,
            (ref, type, reason, message) -> events.add(type + " " + reason + ": " + message),
            io.jkubelet.agent.events.Refs.node("n1")));
  }

  private String sandbox(Pod pod, int attempt) {
    clock.step(Duration.ofMinutes(1));
    String id =
        runtime.runPodSandbox(
            Configs.sandbox(pod, attempt, PAUSE, 0, null, pod.getMetadata().getName(), ""));
    return id;
  }

  /** {@code n} dead containers of the pod's container {@code name}, oldest first. */
  private List<String> dead(Pod pod, String sandbox, String name, int n) throws Exception {
    return dead(pod, sandbox, name, n, Duration.ofMinutes(1));
  }

  /** The same, each created {@code apart} after the one before. */
  private List<String> dead(Pod pod, String sandbox, String name, int n, Duration apart)
      throws Exception {
    List<String> ids = new ArrayList<>();
    var spec =
        pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst();
    for (int i = 0; i < n; i++) {
      clock.step(apart);
      String id =
          runtime.createContainer(
              sandbox,
              Configs.container(
                  pod,
                  spec.get(),
                  false,
                  Configs.Instance.of(sandbox, restarts++, Map.of(), List.of())));
      runtime.startContainer(id);
      runtime.exit(id, 1, "");
      ids.add(id);
    }
    return ids;
  }

  private String running(Pod pod, String sandbox, String name) throws Exception {
    clock.step(Duration.ofMinutes(1));
    var spec =
        pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst();
    String id =
        runtime.createContainer(
            sandbox,
            Configs.container(
                pod,
                spec.get(),
                false,
                Configs.Instance.of(sandbox, restarts++, Map.of(), List.of())));
    runtime.startContainer(id);
    return id;
  }

  private Set<String> left() {
    Set<String> ids = new HashSet<>();
    runtime.all().forEach(f -> ids.add(f.id));
    return ids;
  }

  @Test
  void eachContainerOfAPodKeepsItsNewestDeadOnesAndRunningOnesAreNeverTouched() throws Exception {
    Pod pod = TestPods.simple("u1", "p", "a", "b", "c");
    String s = sandbox(pod, 0);
    List<String> a = dead(pod, s, "a", 4);
    List<String> b = dead(pod, s, "b", 2);
    String c = running(pod, s, "c");

    gc(2, -1, Duration.ZERO).garbageCollect();

    assertThat(left()).containsExactlyInAnyOrder(s, a.get(2), a.get(3), b.get(0), b.get(1), c);
  }

  @Test
  void deadContainersCreatedWithinOneSecondKeepTheOneWithTheHighestRestartCount() throws Exception {
    // Docker lists creation in whole seconds; a crash-looping container restarts within one.
    Pod pod = TestPods.simple("u1", "p", "a");
    String s = sandbox(pod, 0);
    List<String> a = dead(pod, s, "a", 3, Duration.ZERO);

    gc(1, -1, Duration.ZERO).garbageCollect();

    assertThat(left()).containsExactlyInAnyOrder(s, a.get(2));
  }

  @Test
  void containersYoungerThanTheMinimumAgeNeitherGoNorCount() throws Exception {
    Pod pod = TestPods.simple("u1", "p", "a");
    String s = sandbox(pod, 0);
    List<String> a = dead(pod, s, "a", 5); // created 4, 3, 2, 1 and 0 minutes ago

    gc(1, -1, Duration.ofSeconds(150)).garbageCollect();

    // Two are older than 2.5 minutes: the newer of them is kept; the three young ones stay.
    assertThat(left()).containsExactlyInAnyOrder(s, a.get(1), a.get(2), a.get(3), a.get(4));
  }

  @Test
  void aDeletedPodLosesEveryDeadContainerAndSandboxOnceEverySourceIsHeard() throws Exception {
    Pod pod = TestPods.simple("u1", "p", "a");
    String s = sandbox(pod, 0);
    runtime.stopPodSandbox(s, Duration.ZERO);
    dead(pod, s, "a", 2);
    states.deleted.add("u1");
    states.ready = false;

    gc(1, -1, Duration.ZERO).garbageCollect();
    assertThat(left()).hasSize(2); // one dead container and the sandbox that holds it

    states.ready = true;
    gc(1, -1, Duration.ZERO).garbageCollect();
    assertThat(left()).isEmpty();
  }

  @Test
  void overTheGlobalCapEachContainerKeepsAnEqualShareThenTheOldestGo() throws Exception {
    Pod p1 = TestPods.simple("u1", "p1", "a", "b");
    Pod p2 = TestPods.simple("u2", "p2", "a");
    String s1 = sandbox(p1, 0);
    String s2 = sandbox(p2, 0);
    List<String> p1a = dead(p1, s1, "a", 3);
    List<String> p2a = dead(p2, s2, "a", 3);
    List<String> p1b = dead(p1, s1, "b", 3);

    gc(-1, 2, Duration.ZERO).garbageCollect();

    // 2 / 3 units: one each (at least one), then the oldest of those three goes.
    assertThat(left()).containsExactlyInAnyOrder(s1, s2, p2a.get(2), p1b.get(2));
    assertThat(p1a).noneMatch(left()::contains);
  }

  @Test
  void aPodAWorkerIsBusyWithIsLeftForTheNextRun() throws Exception {
    Pod pod = TestPods.simple("u1", "p", "a");
    String s = sandbox(pod, 0);
    List<String> a = dead(pod, s, "a", 3);
    states.busy.add("u1");

    gc(0, -1, Duration.ZERO).garbageCollect();
    assertThat(left()).containsAll(a);

    states.busy.clear();
    gc(0, -1, Duration.ZERO).garbageCollect();
    assertThat(left()).containsExactly(s);
  }

  @Test
  void onlyTheNewestSandboxOfAPodThatExistsIsKeptAndOnesHoldingContainersStay() throws Exception {
    Pod pod = TestPods.simple("u1", "p", "a");
    String old = sandbox(pod, 0);
    runtime.stopPodSandbox(old, Duration.ZERO);
    String holding = sandbox(pod, 1);
    runtime.stopPodSandbox(holding, Duration.ZERO);
    String kept = dead(pod, holding, "a", 1).get(0);
    String newest = sandbox(pod, 2);
    runtime.stopPodSandbox(newest, Duration.ZERO);

    gc(1, -1, Duration.ZERO).garbageCollect();

    assertThat(left()).containsExactlyInAnyOrder(holding, kept, newest);
  }

  @Test
  void deleteAllUnusedContainersIgnoresAgeAndCountsAndTakesTerminatedPods() throws Exception {
    Pod live = TestPods.simple("u1", "p1", "a", "b");
    Pod done = TestPods.simple("u2", "p2", "a");
    String s1 = sandbox(live, 0);
    dead(live, s1, "a", 2);
    String b = running(live, s1, "b");
    String s2 = sandbox(done, 0);
    runtime.stopPodSandbox(s2, Duration.ZERO);
    dead(done, s2, "a", 1);
    states.terminated.add("u2");
    ContainerGc gc = gc(5, -1, Duration.ofHours(1));

    gc.garbageCollect();
    assertThat(left()).hasSize(6); // the policy keeps everything: young, and under the counts

    gc.deleteAllUnusedContainers();
    assertThat(left()).containsExactlyInAnyOrder(s1, b);
    assertThat(runtime.all()).allMatch(f -> f.state == ContainerState.RUNNING);
  }

  @Test
  void aRuntimeThatCannotListIsAContainerGcFailedEventOnTheNode() {
    runtime.setDown(true);
    gc(1, -1, Duration.ZERO).garbageCollect();
    assertThat(events).singleElement().asString().startsWith("Warning ContainerGCFailed: ");
  }
}
