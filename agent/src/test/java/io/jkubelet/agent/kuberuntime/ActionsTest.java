package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ActionsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private int seq;

  private Pod pod(String restartPolicy, boolean withInits) {
    return TestPods.parse(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: default, uid: u1}
        spec:
          restartPolicy: %s
          %s
          containers:
          - {name: a, image: 'jkubelet/busybox:1.35'}
          - {name: b, image: 'jkubelet/busybox:1.35'}
        """
            .formatted(
                restartPolicy,
                withInits
                    ? "initContainers: [{name: i1, image: 'jkubelet/busybox:1.35'}, {name: i2, image: 'jkubelet/busybox:1.35'}]"
                    : ""));
  }

  private final List<SandboxStatus> sandboxes = new ArrayList<>();
  private final List<ContainerStatus> containers = new ArrayList<>();

  private void sandbox(boolean ready) {
    sandboxes.add(
        SandboxStatus.of(
            "sb" + seq,
            sandboxes.size(),
            ready,
            ready ? "10.0.0.2" : "",
            T0.plusSeconds(seq++),
            Map.of(Labels.HOST_NETWORK, "false")));
  }

  private void container(Pod pod, String name, ContainerState state, int exitCode) {
    var spec =
        pod.getSpec().getContainers().stream()
            .filter(c -> c.getName().equals(name))
            .findFirst()
            .or(
                () ->
                    pod.getSpec().getInitContainers().stream()
                        .filter(c -> c.getName().equals(name))
                        .findFirst())
            .orElseThrow();
    containers.add(
        new ContainerStatus(
            name + seq,
            name,
            "sb0",
            state,
            new ContainerStatus.Times(
                T0.plusSeconds(seq++), T0, state == ContainerState.EXITED ? T0 : null),
            new ContainerStatus.Exit(exitCode, "", ""),
            new ContainerStatus.Origin(spec.getImage(), "", ContainerHash.of(spec), 0, Map.of()),
            0));
  }

  private PodActions compute(Pod pod) {
    return Actions.compute(
        pod,
        new PodStatus(new PodRef("u1", "p", "default"), sandboxes, containers),
        Actions.FailedProbes.NONE);
  }

  @Test
  void aNewPodGetsASandboxAndEveryContainer() {
    PodActions a = compute(pod("Always", false));
    assertThat(a.createSandbox()).isTrue();
    assertThat(a.attempt()).isZero();
    assertThat(a.containersToStart()).containsExactly(0, 1);
  }

  @Test
  void aNewPodWithInitContainersStartsOnlyTheFirstInit() {
    PodActions a = compute(pod("Always", true));
    assertThat(a.createSandbox()).isTrue();
    assertThat(a.nextInitContainer().getName()).isEqualTo("i1");
    assertThat(a.containersToStart()).isEmpty();
  }

  @Test
  void initContainersRunOneAtATimeInOrder() {
    Pod pod = pod("Always", true);
    sandbox(true);
    container(pod, "i1", ContainerState.RUNNING, 0);
    assertThat(compute(pod).isNoop()).as("i1 still running").isTrue();

    containers.clear();
    container(pod, "i1", ContainerState.EXITED, 0);
    assertThat(compute(pod).nextInitContainer().getName()).isEqualTo("i2");

    container(pod, "i2", ContainerState.EXITED, 0);
    PodActions a = compute(pod);
    assertThat(a.nextInitContainer()).isNull();
    assertThat(a.containersToStart()).containsExactly(0, 1);
  }

  @Test
  void aFailedInitContainerIsRetriedUnlessRestartPolicyIsNever() {
    Pod always = pod("Always", true);
    sandbox(true);
    container(always, "i1", ContainerState.EXITED, 1);
    assertThat(compute(always).nextInitContainer().getName()).isEqualTo("i1");

    PodActions never = compute(pod("Never", true));
    assertThat(never.killPod()).isTrue();
    assertThat(never.nextInitContainer()).isNull();
  }

  @Test
  void runningContainersWithUnchangedSpecsAreLeftAlone() {
    Pod pod = pod("Always", false);
    sandbox(true);
    container(pod, "a", ContainerState.RUNNING, 0);
    container(pod, "b", ContainerState.RUNNING, 0);
    assertThat(compute(pod).isNoop()).isTrue();
  }

  @Test
  void aChangedSpecRestartsJustThatContainer() {
    Pod pod = pod("Always", false);
    sandbox(true);
    container(pod, "a", ContainerState.RUNNING, 0);
    container(pod, "b", ContainerState.RUNNING, 0);
    pod.getSpec().getContainers().get(1).setCommand(List.of("sleep", "5"));
    PodActions a = compute(pod);
    assertThat(a.killPod()).isFalse();
    assertThat(a.containersToStart()).containsExactly(1);
    assertThat(a.containersToKill().values())
        .singleElement()
        .satisfies(
            k ->
                assertThat(k.message())
                    .isEqualTo("Container b definition changed, will be restarted"));
  }

  @Test
  void restartPolicyDecidesWhetherAnExitedContainerRestarts() {
    for (var c :
        List.of(
            new Object[] {"Always", 0, true},
            new Object[] {"Always", 1, true},
            new Object[] {"OnFailure", 0, false},
            new Object[] {"OnFailure", 2, true},
            new Object[] {"Never", 0, false},
            new Object[] {"Never", 1, false})) {
      sandboxes.clear();
      containers.clear();
      Pod pod = pod((String) c[0], false);
      sandbox(true);
      container(pod, "a", ContainerState.RUNNING, 0);
      container(pod, "b", ContainerState.EXITED, (int) c[1]);
      assertThat(compute(pod).containersToStart().contains(1))
          .as("%s with exit %s", c[0], c[1])
          .isEqualTo(c[2]);
    }
  }

  @Test
  void aPodWithNothingLeftToRunIsKilled() {
    Pod pod = pod("Never", false);
    sandbox(true);
    container(pod, "a", ContainerState.EXITED, 0);
    container(pod, "b", ContainerState.EXITED, 1);
    PodActions a = compute(pod);
    assertThat(a.killPod()).isTrue();
    assertThat(a.containersToStart()).isEmpty();
  }

  @Test
  void aDeadSandboxIsReplacedWithTheNextAttempt() {
    Pod pod = pod("Always", false);
    sandbox(false);
    container(pod, "a", ContainerState.EXITED, 0);
    PodActions a = compute(pod);
    assertThat(a.createSandbox()).isTrue();
    assertThat(a.killPod()).isTrue();
    assertThat(a.attempt()).isEqualTo(1);
    assertThat(a.containersToStart()).containsExactly(0, 1);
  }

  @Test
  void aFinishedNeverPodGetsNoNewSandbox() {
    Pod pod = pod("Never", false);
    sandbox(false);
    container(pod, "a", ContainerState.EXITED, 0);
    PodActions a = compute(pod);
    assertThat(a.createSandbox()).isFalse();
    assertThat(a.containersToStart()).isEmpty();
  }

  @Test
  void aContainerThatFailedItsLivenessProbeIsKilledAndRestarted() {
    Pod pod = pod("Always", false);
    sandbox(true);
    container(pod, "a", ContainerState.RUNNING, 0);
    container(pod, "b", ContainerState.RUNNING, 0);
    String a = containers.get(0).id();
    PodActions actions =
        Actions.compute(
            pod, status(), id -> id.equals(a) ? Optional.of(ProbeType.LIVENESS) : Optional.empty());
    assertThat(actions.killPod()).isFalse();
    assertThat(actions.containersToKill())
        .containsOnlyKeys(a)
        .containsEntry(
            a,
            new PodActions.KillInfo("a", "Container a failed liveness probe, will be restarted"));
    assertThat(actions.containersToStart()).containsExactly(0);
  }

  @Test
  void aFailedStartupProbeSaysSoAndNeverMeansKillWithoutRestart() {
    Pod pod = pod("Never", false);
    sandbox(true);
    container(pod, "a", ContainerState.RUNNING, 0);
    container(pod, "b", ContainerState.RUNNING, 0);
    String b = containers.get(1).id();
    PodActions actions =
        Actions.compute(
            pod, status(), id -> id.equals(b) ? Optional.of(ProbeType.STARTUP) : Optional.empty());
    assertThat(actions.containersToKill())
        .containsEntry(b, new PodActions.KillInfo("b", "Container b failed startup probe"));
    assertThat(actions.containersToStart()).isEmpty();
  }

  @Test
  void noFailedProbeLeavesRunningContainersAlone() {
    Pod pod = pod("Always", false);
    sandbox(true);
    container(pod, "a", ContainerState.RUNNING, 0);
    container(pod, "b", ContainerState.RUNNING, 0);
    assertThat(Actions.compute(pod, status(), Actions.FailedProbes.NONE).isNoop()).isTrue();
  }

  private PodStatus status() {
    return new PodStatus(new PodRef("u1", "p", "default"), sandboxes, containers);
  }
}
