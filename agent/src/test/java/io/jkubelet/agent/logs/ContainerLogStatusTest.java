package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.logs.ContainerLogStatus.Result;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which instance a log request reads, with upstream's messages (validateContainerLogStatus). */
class ContainerLogStatusTest {
  private static PodStatus pod(ContainerStatus c) {
    return new PodStatusBuilder().withContainerStatuses(c).build();
  }

  private static ContainerStatusBuilder c() {
    return new ContainerStatusBuilder().withName("app");
  }

  static Stream<Arguments> cases() {
    ContainerStatus running =
        c().withContainerID("docker://run1")
            .withNewState()
            .withNewRunning()
            .endRunning()
            .endState()
            .withNewLastState()
            .withNewTerminated()
            .withContainerID("docker://old1")
            .withExitCode(1)
            .endTerminated()
            .endLastState()
            .build();
    ContainerStatus firstRun =
        c().withContainerID("docker://run1")
            .withNewState()
            .withNewRunning()
            .endRunning()
            .endState()
            .build();
    ContainerStatus pulling =
        c().withNewState()
            .withNewWaiting()
            .withReason("ImagePullBackOff")
            .endWaiting()
            .endState()
            .build();
    ContainerStatus creating =
        c().withNewState()
            .withNewWaiting()
            .withReason("ContainerCreating")
            .endWaiting()
            .endState()
            .build();
    ContainerStatus crashLoop =
        c().withNewState()
            .withNewWaiting()
            .withReason("CrashLoopBackOff")
            .endWaiting()
            .endState()
            .withNewLastState()
            .withNewTerminated()
            .withContainerID("docker://dead")
            .withExitCode(2)
            .endTerminated()
            .endLastState()
            .build();
    return Stream.of(
        Arguments.of("running", running, false, new Result.Found("run1")),
        Arguments.of("previous", running, true, new Result.Found("old1")),
        Arguments.of(
            "no previous",
            firstRun,
            true,
            new Result.NotAvailable(
                "previous terminated container \"app\" in pod \"web\" not found")),
        Arguments.of("crash loop reads the dead one", crashLoop, false, new Result.Found("dead")),
        Arguments.of(
            "image pull back-off",
            pulling,
            false,
            new Result.NotAvailable(
                "container \"app\" in pod \"web\" is waiting to start: trying and failing to pull image")),
        Arguments.of(
            "creating",
            creating,
            false,
            new Result.NotAvailable(
                "container \"app\" in pod \"web\" is waiting to start: ContainerCreating")),
        Arguments.of(
            "no status",
            new ContainerStatusBuilder().withName("other").build(),
            false,
            new Result.NotAvailable("container \"app\" in pod \"web\" is not available")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void picksTheInstanceOrSaysWhy(
      String name, ContainerStatus status, boolean previous, Result want) {
    assertThat(ContainerLogStatus.validate("web", pod(status), "app", previous)).isEqualTo(want);
  }
}
