package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContainerCgroupPathsTest {
  @Test
  void belowItsPodsCgroupFirstWithEitherDriverThenWhereTheEngineAloneWouldPutIt() {
    assertThat(
            ContainerCgroupPaths.candidates(
                List.of("/kubepods/burstable/podu1", "kubepods.slice/kubepods-pod_u1.slice"), "c1"))
        .containsExactly(
            "kubepods/burstable/podu1/c1",
            "kubepods/burstable/podu1/docker-c1.scope",
            "kubepods.slice/kubepods-pod_u1.slice/c1",
            "kubepods.slice/kubepods-pod_u1.slice/docker-c1.scope",
            "docker/c1",
            "system.slice/docker-c1.scope");
  }

  @Test
  void withoutPodCgroupsOnlyTheEnginesOwnParents() {
    assertThat(ContainerCgroupPaths.candidates(List.of(), "c1"))
        .containsExactly("docker/c1", "system.slice/docker-c1.scope");
  }
}
