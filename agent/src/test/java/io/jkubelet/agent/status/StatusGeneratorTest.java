package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.kuberuntime.ContainerHash;
import io.jkubelet.agent.prober.ContainerHealth;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusGeneratorTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final ReasonCache reasons = ReasonCache.create();
  private final List<io.jkubelet.agent.runtime.ContainerStatus> containers = new ArrayList<>();
  private final List<SandboxStatus> sandboxes =
      new ArrayList<>(List.of(SandboxStatus.of("sb", 0, true, "10.0.0.7", T0, Map.of())));
  private int seq = 1;

  private final Pod pod =
      TestPods.parse(
          """
          apiVersion: v1
          kind: Pod
          metadata: {name: p, namespace: default, uid: u1}
          spec:
            containers:
            - name: a
              image: 'jkubelet/busybox:1.35'
              resources: {limits: {cpu: 100m, memory: 16Mi}}
          """);

  private void container(ContainerState state, int exit, String reason, int restartCount) {
    Instant t = T0.plusSeconds(seq++);
    containers.add(
        new io.jkubelet.agent.runtime.ContainerStatus(
            "id" + seq,
            "a",
            "sb",
            state,
            new io.jkubelet.agent.runtime.ContainerStatus.Times(
                t, t, state == ContainerState.EXITED ? t.plusMillis(500) : null),
            new io.jkubelet.agent.runtime.ContainerStatus.Exit(exit, reason, ""),
            new io.jkubelet.agent.runtime.ContainerStatus.Origin(
                "jkubelet/busybox:1.35",
                "docker://sha256:abc",
                ContainerHash.of(pod.getSpec().getContainers().get(0)),
                restartCount,
                Map.of()),
            0));
  }

  private ContainerHealth health = ContainerHealth.NO_PROBES;

  private io.fabric8.kubernetes.api.model.PodStatus generate(
      io.fabric8.kubernetes.api.model.PodStatus previous, Instant now) {
    return StatusGenerator.generate(
        pod,
        new PodStatus(new PodRef("u1", "p", "default"), sandboxes, containers),
        reasons,
        previous,
        now,
        "192.168.1.5",
        health);
  }

  private static String condition(io.fabric8.kubernetes.api.model.PodStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(PodCondition::getStatus)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aPodWithNothingRunningYetIsPendingWithContainerCreating() {
    var s = generate(null, T0);
    assertThat(s.getPhase()).isEqualTo("Pending");
    assertThat(s.getContainerStatuses().get(0).getState().getWaiting().getReason())
        .isEqualTo("ContainerCreating");
    assertThat(s.getConditions())
        .extracting(PodCondition::getType)
        .containsExactly("Initialized", "Ready", "ContainersReady", "PodScheduled");
    assertThat(condition(s, "Ready")).isEqualTo("False");
    assertThat(s.getQosClass()).isEqualTo("Guaranteed");
    assertThat(s.getHostIP()).isEqualTo("192.168.1.5");
  }

  @Test
  void aRunningPodIsRunningAndReadyWithItsIpAndDockerIds() {
    container(ContainerState.RUNNING, 0, "", 0);
    var s = generate(null, T0);
    assertThat(s.getPhase()).isEqualTo("Running");
    assertThat(s.getPodIP()).isEqualTo("10.0.0.7");
    ContainerStatus cs = s.getContainerStatuses().get(0);
    assertThat(cs.getReady()).isTrue();
    assertThat(cs.getStarted()).isTrue();
    assertThat(cs.getContainerID()).startsWith("docker://id");
    assertThat(cs.getState().getRunning().getStartedAt()).isNotNull();
    assertThat(condition(s, "Ready")).isEqualTo("True");
    assertThat(condition(s, "ContainersReady")).isEqualTo("True");
  }

  @Test
  void aCrashLoopShowsTheWaitingReasonAndTheLastTermination() {
    container(ContainerState.EXITED, 137, "OOMKilled", 3);
    reasons.add(
        "u1",
        "a",
        "CrashLoopBackOff",
        "back-off 40s restarting failed container=a pod=p_default(u1)");
    var s = generate(null, T0);
    ContainerStatus cs = s.getContainerStatuses().get(0);
    assertThat(cs.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
    assertThat(cs.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
    assertThat(cs.getLastState().getTerminated().getExitCode()).isEqualTo(137);
    assertThat(cs.getRestartCount()).isEqualTo(3);
    assertThat(cs.getReady()).isFalse();
    assertThat(s.getPhase()).isEqualTo("Running");
  }

  @Test
  void aRestartedContainerShowsItsPredecessorAsLastState() {
    container(ContainerState.EXITED, 137, "OOMKilled", 0);
    container(ContainerState.RUNNING, 0, "", 1);
    ContainerStatus cs = generate(null, T0).getContainerStatuses().get(0);
    assertThat(cs.getState().getRunning()).isNotNull();
    assertThat(cs.getLastState().getTerminated().getReason()).isEqualTo("OOMKilled");
    assertThat(cs.getRestartCount()).isEqualTo(1);
  }

  @Test
  void transitionTimesChangeOnlyWhenAConditionChanges() {
    var first = generate(null, T0);
    var second = generate(first, T0.plusSeconds(30));
    assertThat(second.getConditions().get(1).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
    container(ContainerState.RUNNING, 0, "", 0);
    var third = generate(second, T0.plusSeconds(60));
    assertThat(third.getConditions().get(1).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:01:00Z");
    assertThat(third.getConditions().get(3).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
    assertThat(third.getStartTime()).as("start time is kept").isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void phaseFollowsRestartPolicyOnceContainersExit() {
    container(ContainerState.EXITED, 0, "Completed", 0);
    pod.getSpec().setRestartPolicy("Never");
    assertThat(generate(null, T0).getPhase()).isEqualTo("Succeeded");
    containers.clear();
    container(ContainerState.EXITED, 1, "Error", 0);
    assertThat(generate(null, T0).getPhase()).isEqualTo("Failed");
    pod.getSpec().setRestartPolicy("Always");
    assertThat(generate(null, T0).getPhase()).isEqualTo("Running");
  }

  /**
   * A zero limit does not count towards Guaranteed (upstream's {@code GetPodQOS} counts only
   * quantities above zero): the status must say Burstable, as the API server and the pod's cgroup
   * do.
   */
  @Test
  void aZeroCpuLimitMakesThePodBurstableNotGuaranteed() {
    Pod zeroCpu =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: z, namespace: default, uid: u2}
            spec:
              containers:
              - name: a
                image: 'jkubelet/busybox:1.35'
                resources:
                  limits: {cpu: "0", memory: 64Mi}
                  requests: {cpu: "0", memory: 64Mi}
            """);
    var s =
        StatusGenerator.generate(
            zeroCpu,
            new PodStatus(new PodRef("u2", "z", "default"), sandboxes, List.of()),
            reasons,
            null,
            T0,
            "192.168.1.5",
            health);
    assertThat(s.getQosClass()).isEqualTo("Burstable");
  }

  @Test
  void probesDriveReadyStartedAndTheReadyConditionsWithTransitionTimes() {
    container(ContainerState.RUNNING, 0, "", 0);
    health = ContainerHealth.fixed(false, false);
    var starting = generate(null, T0);
    assertThat(starting.getContainerStatuses().get(0).getReady()).isFalse();
    assertThat(starting.getContainerStatuses().get(0).getStarted()).isFalse();
    assertThat(condition(starting, "Ready")).isEqualTo("False");
    assertThat(condition(starting, "ContainersReady")).isEqualTo("False");
    assertThat(starting.getPhase()).isEqualTo("Running");

    health = ContainerHealth.fixed(true, true);
    var ready = generate(starting, T0.plusSeconds(5));
    assertThat(ready.getContainerStatuses().get(0).getReady()).isTrue();
    assertThat(ready.getContainerStatuses().get(0).getStarted()).isTrue();
    assertThat(condition(ready, "Ready")).isEqualTo("True");
    assertThat(transition(ready, "Ready")).isEqualTo("2026-01-01T00:00:05Z");
    assertThat(transition(ready, "Initialized")).isEqualTo("2026-01-01T00:00:00Z");

    health = ContainerHealth.fixed(false, true);
    var unready = generate(ready, T0.plusSeconds(9));
    assertThat(condition(unready, "ContainersReady")).isEqualTo("False");
    assertThat(transition(unready, "ContainersReady")).isEqualTo("2026-01-01T00:00:09Z");
    assertThat(unready.getContainerStatuses().get(0).getStarted()).isTrue();
  }

  private static String transition(io.fabric8.kubernetes.api.model.PodStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(PodCondition::getLastTransitionTime)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aPodPastItsActiveDeadlineFailsWithDeadlineExceeded() {
    pod.getSpec().setActiveDeadlineSeconds(5L);
    container(ContainerState.RUNNING, 0, "", 0);
    var first = generate(null, T0);
    assertThat(first.getPhase()).isEqualTo("Running");
    assertThat(first.getReason()).isNull();
    assertThat(generate(first, T0.plusSeconds(4)).getPhase()).isEqualTo("Running");

    var late = generate(first, T0.plusSeconds(5));
    assertThat(late.getPhase()).isEqualTo("Failed");
    assertThat(late.getReason()).isEqualTo("DeadlineExceeded");
    assertThat(late.getMessage())
        .isEqualTo("Pod was active on the node longer than the specified deadline");

    // Its containers are killed next; the pod stays failed for the same reason.
    containers.clear();
    pod.getSpec().setRestartPolicy("Never");
    container(ContainerState.EXITED, 137, "Error", 0);
    var killed = generate(late, T0.plusSeconds(7));
    assertThat(killed.getPhase()).isEqualTo("Failed");
    assertThat(killed.getReason()).isEqualTo("DeadlineExceeded");
  }

  @Test
  void anInitContainerThatExitedZeroIsReadyAndOneThatFailedIsNot() {
    pod.getSpec().setInitContainers(List.of(pod.getSpec().getContainers().get(0)));
    pod.getSpec()
        .setContainers(
            List.of(
                new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName("b")
                    .withImage("jkubelet/busybox:1.35")
                    .build()));
    container(ContainerState.EXITED, 0, "Completed", 0);
    assertThat(generate(null, T0).getInitContainerStatuses().get(0).getReady()).isTrue();

    containers.clear();
    pod.getSpec().setRestartPolicy("Never");
    container(ContainerState.EXITED, 1, "Error", 0);
    assertThat(generate(null, T0).getInitContainerStatuses().get(0).getReady()).isFalse();
  }
}
