package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.runtime.ContainerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigsMountsTest {
  @TempDir Path vol;

  private static final Pod POD = TestPods.builder("ns", "p", "u").editSpec().endSpec().build();

  private ContainerConfig config(VolumeMountBuilder mount, EnvVar... env) throws Exception {
    Container c =
        new ContainerBuilder()
            .withName("c")
            .withImage("busybox")
            .withVolumeMounts(mount.withName("v").build())
            .build();
    return Configs.container(
        POD, c, false, Configs.Instance.of("sb", 0, Map.of("v", vol), List.of(env)));
  }

  @Test
  void subPathExprIsExpandedFromTheContainersEnv() throws Exception {
    ContainerConfig c =
        config(
            new VolumeMountBuilder().withMountPath("/data").withSubPathExpr("logs/$(POD)"),
            new EnvVar("POD", "web-1", null));
    assertThat(c.mounts().get(0).hostPath()).isEqualTo(vol.resolve("logs/web-1").toString());
    assertThat(vol.resolve("logs/web-1")).isDirectory();
  }

  @Test
  void aSubPathExprVariableWithoutValueIsAConfigError() {
    assertThatThrownBy(
            () -> config(new VolumeMountBuilder().withMountPath("/d").withSubPathExpr("$(NOPE)")))
        .isInstanceOf(StartException.class)
        .hasMessage("missing value for NOPE");
  }

  @Test
  void aSubPathMustStayInItsVolume() {
    assertThatThrownBy(
            () -> config(new VolumeMountBuilder().withMountPath("/d").withSubPath("../x")))
        .hasMessage("unable to provision SubPath `../x`: must not contain '..'");
    assertThatThrownBy(
            () -> config(new VolumeMountBuilder().withMountPath("/d").withSubPath("/etc")))
        .hasMessage("error SubPath `/etc` must not be an absolute path");
  }

  @Test
  void secretConfigMapDownwardAndProjectedVolumesAreAlwaysReadOnly() throws Exception {
    Pod pod =
        new PodBuilder(POD)
            .editSpec()
            .addNewVolume()
            .withName("v")
            .withNewSecret()
            .withSecretName("s")
            .endSecret()
            .endVolume()
            .endSpec()
            .build();
    Container c =
        new ContainerBuilder()
            .withName("c")
            .withImage("busybox")
            .withVolumeMounts(new VolumeMountBuilder().withName("v").withMountPath("/s").build())
            .build();
    ContainerConfig config =
        Configs.container(pod, c, false, Configs.Instance.of("sb", 0, Map.of("v", vol), List.of()));
    assertThat(config.mounts().get(0).readOnly()).isTrue();
  }

  @Test
  void readOnlyAndPropagationReachTheMount() throws Exception {
    ContainerConfig c =
        config(
            new VolumeMountBuilder()
                .withMountPath("/d")
                .withReadOnly(true)
                .withMountPropagation("HostToContainer"));
    assertThat(c.mounts().get(0))
        .isEqualTo(
            new ContainerConfig.Mount(
                vol.toString(), "/d", true, ContainerConfig.Propagation.HOST_TO_CONTAINER));
  }
}
