package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod's cgroup parent reaches the runtime in the sandbox's and each container's config. */
class ConfigsCgroupParentTest {
  private static final Pod POD = TestPods.simple("u1", "p", "app");
  private static final String PARENT = "/kubepods/burstable/podu1";

  @Test
  void theSandboxGoesUnderThePodsCgroupAlsoOnAPluginsNetwork() {
    SandboxConfig sandbox = Configs.sandbox(POD, 0, "jkubelet/pause:3.2", 0, null, "p", PARENT);

    assertThat(sandbox.linux().cgroupParent()).isEqualTo(PARENT);
    assertThat(sandbox.onPluginNetwork().linux().cgroupParent()).isEqualTo(PARENT);
    assertThat(sandbox.onPluginNetwork().network().pluginNetwork()).isTrue();
  }

  @Test
  void withoutAParentTheSandboxAndContainersKeepTheRuntimesDefault() throws Exception {
    assertThat(
            Configs.sandbox(POD, 0, "jkubelet/pause:3.2", 0, null, "p", "").linux().cgroupParent())
        .isEmpty();
    assertThat(
            Configs.container(
                    POD,
                    POD.getSpec().getContainers().get(0),
                    false,
                    Configs.Instance.of("sb", 0, Map.of(), List.of()))
                .linux()
                .cgroupParent())
        .isEmpty();
  }

  @Test
  void eachContainerGoesUnderThePodsCgroup() throws Exception {
    ContainerConfig c =
        Configs.container(
            POD,
            POD.getSpec().getContainers().get(0),
            false,
            new Configs.Instance(
                "sb", 0, Map.of(), List.of(), ContainerConfig.Security.DEFAULT, List.of(), PARENT));

    assertThat(c.linux().cgroupParent()).isEqualTo(PARENT);
  }
}
