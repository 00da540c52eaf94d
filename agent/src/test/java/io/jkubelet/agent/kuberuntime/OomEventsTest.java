package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.oom.FakeOomSource;
import io.jkubelet.agent.oom.KernelKill;
import io.jkubelet.agent.oom.MemoryCounters;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One event per kill, naming what the OOM killer killed: the main process (OOMKilled) or a child
 * while the main process runs on (OOMKilling); what is unknown said so; state bounded by the
 * containers the runtime still has.
 */
class OomEventsTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final String C1 = "c1" + "0".repeat(62);
  private static final long LIMIT = 16 << 20;

  private final List<String> reasons = new ArrayList<>();
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder =
      (ref, type, reason, message) -> {
        reasons.add(reason);
        events.add(type + " " + reason + ": " + message);
      };
  private final FakeOomSource source = new FakeOomSource();
  private final AtomicLong mainPid = new AtomicLong(4000);
  private final List<String> resynced = new ArrayList<>();
  private final OomEvents oom =
      new OomEvents(
          recorder, START, new OomEvents.Watch(source, (pod, id) -> mainPid.get(), resynced::add));
  private final Pod pod = TestPods.simple("u1", "web", "app");
  private final PodRef ref = new PodRef("u1", "web", "default");

  @BeforeEach
  void limit() {
    pod.getSpec()
        .getContainers()
        .getFirst()
        .setResources(
            new ResourceRequirementsBuilder().addToLimits("memory", new Quantity("16Mi")).build());
  }

  private static ContainerStatus container(
      String id, ContainerState state, int exitCode, String reason, int restarts) {
    Instant at = START.plusSeconds(10L * (restarts + 1));
    return new ContainerStatus(
        id,
        "app",
        "s1",
        state,
        new ContainerStatus.Times(
            at, at, state == ContainerState.EXITED ? at.plusSeconds(1) : null),
        new ContainerStatus.Exit(exitCode, reason, ""),
        new ContainerStatus.Origin("img", "img@sha", "h", restarts, Map.of()),
        0);
  }

  private static ContainerStatus oomKilled(String id, int restarts) {
    return container(id, ContainerState.EXITED, 137, "OOMKilled", restarts);
  }

  private static ContainerStatus running(String id) {
    return container(id, ContainerState.RUNNING, 0, "", 0);
  }

  private static MemoryCounters counters(long kills) {
    return new MemoryCounters(false, kills, -1, 94, 15 << 20, LIMIT, LIMIT);
  }

  private static KernelKill kill(long pid, String command) {
    return new KernelKill(
        pid,
        pid,
        command,
        "CONSTRAINT_MEMCG",
        "/kubepods/burstable/podu1/" + C1,
        16384,
        16384,
        16128);
  }

  private void observe(ContainerStatus... containers) {
    oom.observe(pod, new PodStatus(ref, List.of(), List.of(containers)));
  }

  @Test
  void aKillIsReportedOnceAndOnlyTheContainersTheRuntimeStillHasAreRemembered() {
    // A container OOM-killed in a loop: the runtime keeps only the newest dead one.
    for (int i = 0; i < 50; i++) {
      PodStatus status = new PodStatus(ref, List.of(), List.of(oomKilled("c" + i, i)));
      oom.observe(pod, status);
      oom.observe(pod, status); // a second sync of the same status reports nothing new
    }
    assertThat(reasons).hasSize(50).containsOnly("OOMKilled");
    assertThat(oom.remembered("u1")).containsExactly("c49");
    assertThat(oom.kills()).containsExactly(new OomEvents.Count("default", "web", "app", 50));

    oom.observe(pod, PodStatus.empty(ref)); // its containers removed: nothing left to remember
    assertThat(oom.size()).isZero();
    assertThat(oom.kills()).isEmpty();
  }

  @Test
  void aChildKilledWhileTheMainProcessRunsOnGetsItsOwnWarningAndItsPodIsSyncedAtOnce() {
    source.setCounters(C1, counters(0));
    observe(running(C1));
    assertThat(events).isEmpty();

    source.setCounters(C1, counters(1));
    source.kill(kill(4242, "dd"));
    assertThat(resynced).as("the kernel log's kill syncs the pod").containsExactly("u1");
    observe(running(C1));

    assertThat(events)
        .containsExactly(
            "Warning OOMKilling: Process 4242 (dd) of container app was killed by the OOM killer,"
                + " not the container's main process; the container's main process (pid 4000)"
                + " runs on; memory usage 15Mi of its 16Mi limit, peak 16Mi, limit reached 94"
                + " times");
    assertThat(oom.kills()).containsExactly(new OomEvents.Count("default", "web", "app", 1));
    observe(running(C1));
    assertThat(events).as("reported once").hasSize(1);
  }

  @Test
  void theMainProcessKilledIsNamedWithTheUsageTheKernelReported() {
    source.setCounters(C1, counters(0));
    observe(running(C1));
    source.setCounters(C1, null); // the container is gone, and its cgroup with it
    source.kill(kill(4000, "dd"));
    observe(oomKilled(C1, 0));

    assertThat(events)
        .containsExactly(
            "Warning OOMKilled: Container app was killed for exceeding its memory limit of 16Mi"
                + " (restart count 0): the OOM killer killed process 4000 (dd), the container's"
                + " main process; memory usage 16Mi of its 16Mi limit when it ran out (the process"
                + " held 15.8Mi)");
    assertThat(oom.kills()).containsExactly(new OomEvents.Count("default", "web", "app", 1));
  }

  @Test
  void theMainProcessKilledWhileTheEngineStillSaysItRunsIsNoChild() {
    source.setCounters(C1, counters(0));
    observe(running(C1));
    source.setCounters(C1, counters(1));
    source.kill(kill(4000, "dd")); // the main process (mainPid 4000), not yet seen exit
    observe(running(C1));
    assertThat(events).as("no OOMKilling for the main process").isEmpty();

    source.setCounters(C1, null);
    observe(oomKilled(C1, 0));
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith("Warning OOMKilled: ")
        .contains("the OOM killer killed process 4000 (dd), the container's main process");
  }

  @Test
  void aKillSeenAsTheContainerExitsIsLeftToItsExit() {
    source.setCounters(C1, counters(0));
    observe(running(C1));
    source.setCounters(C1, counters(1));
    source.kill(kill(4000, "dd"));
    mainPid.set(0); // the runtime says it no longer runs
    observe(running(C1));
    assertThat(events).isEmpty();

    source.setCounters(C1, null);
    observe(oomKilled(C1, 0));
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith("Warning OOMKilled: ")
        .contains("the OOM killer killed process 4000 (dd), the container's main process");
  }

  @Test
  void withoutTheKernelLogTheEventsSayWhatIsNotKnown() {
    String missing =
        "the kernel log (/dev/kmsg) is not readable: java.nio.file.AccessDeniedException";
    source.setKernelLogMissing(missing);
    source.setCounters(C1, counters(0));
    observe(running(C1));
    source.setCounters(C1, counters(2));
    observe(running(C1));
    source.setCounters(C1, null);
    observe(oomKilled(C1, 0));

    assertThat(events)
        .containsExactly(
            "Warning OOMKilling: 2 processes of container app killed by the OOM killer; the"
                + " container's main process (pid 4000) runs on; memory usage 15Mi of its 16Mi"
                + " limit, peak 16Mi, limit reached 94 times; not known: the process killed (pid"
                + " and command), as "
                + missing,
            "Warning OOMKilled: Container app was killed for exceeding its memory limit of 16Mi"
                + " (restart count 0): not known: the process killed (pid and command) and"
                + " whether it was the main process, as "
                + missing
                + "; memory usage unknown (the container's cgroup is gone and "
                + missing
                + ")");
    assertThat(oom.kills()).containsExactly(new OomEvents.Count("default", "web", "app", 3));
  }

  @Test
  void aCountAheadOfTheKernelLogWaitsOneSyncForItsRecord() {
    source.setCounters(C1, counters(0));
    observe(running(C1));
    source.setCounters(C1, counters(1));
    observe(running(C1)); // the log's reader is a moment behind
    assertThat(events).isEmpty();
    observe(running(C1)); // and still nothing: said as unknown
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith("Warning OOMKilling: A process of container app killed by the OOM killer")
        .endsWith(
            "not known: the process killed (pid and command), as the kernel log has no"
                + " record of it");
  }

  @Test
  void anExitAheadOfTheKernelLogWaitsForItsRecord() {
    observe(oomKilled(C1, 0));
    assertThat(events).isEmpty();
    source.kill(kill(4000, "dd"));
    assertThat(resynced).containsExactly("u1");
    observe(oomKilled(C1, 0));
    assertThat(events)
        .singleElement()
        .asString()
        .contains("the OOM killer killed process 4000 (dd), the container's main process");
  }

  @Test
  void killsBeforeThisAgentStartedAreNotReported() {
    ContainerStatus old =
        new ContainerStatus(
            C1,
            "app",
            "s1",
            ContainerState.RUNNING,
            new ContainerStatus.Times(START.minusSeconds(60), START.minusSeconds(60), null),
            new ContainerStatus.Exit(0, "", ""),
            new ContainerStatus.Origin("img", "img@sha", "h", 0, Map.of()),
            0L);
    source.kill(kill(4242, "dd"));
    source.setCounters(C1, counters(3));
    observe(old);
    observe(old);
    assertThat(events).isEmpty();
    assertThat(oom.kills()).isEmpty();
  }
}
