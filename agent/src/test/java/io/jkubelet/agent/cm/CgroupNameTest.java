package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.config.CgroupSettings;
import io.jkubelet.config.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Upstream's {@code TestCgroupNameToSystemd*}, {@code TestCgroupNameToCgroupfs}, {@code
 * TestParseSystemdToCgroupName} (cgroup_manager_linux_test.go) and {@code TestIsCgroupPod}'s names,
 * ported; and the form Docker's cgroup parent takes with each driver.
 */
class CgroupNameTest {
  private static CgroupName name(String... components) {
    CgroupName n = CgroupName.ROOT;
    for (String c : components) {
      n = n.child(c);
    }
    return n;
  }

  @Test
  void toSystemdAsUpstream() {
    assertThat(CgroupName.ROOT.toSystemd()).isEqualTo("/");
    assertThat(name("Burstable").toSystemd()).isEqualTo("/Burstable.slice");
    assertThat(name("Burstable", "pod-123").toSystemd())
        .isEqualTo("/Burstable.slice/Burstable-pod_123.slice");
    assertThat(name("BestEffort", "pod-6c1a4e95-6bb6-11e6-bc26-28d2444e470d").toSystemd())
        .isEqualTo("/BestEffort.slice/BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice");
    assertThat(name("kubepods").toSystemd()).isEqualTo("/kubepods.slice");
  }

  @ParameterizedTest
  @CsvSource({
    "system, system.slice",
    "system/Burstable, system-Burstable.slice",
    "Burstable/pod-123, Burstable-pod_123.slice",
    "test/a/b, test-a-b.slice",
    "test/a/b/Burstable, test-a-b-Burstable.slice",
    "Burstable, Burstable.slice",
    "BestEffort/pod-6c1a4e95-6bb6-11e6-bc26-28d2444e470d,"
        + " BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice"
  })
  void systemdBasenameAsUpstream(String components, String basename) {
    String systemd = name(components.split("/")).toSystemd();
    assertThat(systemd.substring(systemd.lastIndexOf('/') + 1)).isEqualTo(basename);
  }

  @Test
  void cgroupfsAndParsingAsUpstream() {
    assertThat(CgroupName.ROOT.toCgroupfs()).isEqualTo("/");
    assertThat(name("Burstable").toCgroupfs()).isEqualTo("/Burstable");
    assertThat(CgroupName.parseSystemd("/test")).isEqualTo(name("test"));
    assertThat(CgroupName.parseSystemd("/test.slice")).isEqualTo(name("test"));
    assertThat(CgroupName.parseCgroupfs("/")).isEqualTo(CgroupName.ROOT);
    assertThat(CgroupName.parseCgroupfs("/kubepods/burstable"))
        .isEqualTo(name("kubepods", "burstable"));

    CgroupName pod = name("kubepods", "burstable", "pod6c1a4e95-6bb6-11e6");
    assertThat(CgroupName.parseSystemd(pod.toSystemd())).isEqualTo(pod);
    assertThat(CgroupName.parseCgroupfs(pod.toCgroupfs())).isEqualTo(pod);
  }

  @Test
  void componentsWithSlashOrUnderscoreAreRefusedAsUpstreamsNewCgroupName() {
    assertThatThrownBy(() -> CgroupName.ROOT.child("a_b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a_b");
    assertThatThrownBy(() -> CgroupName.ROOT.child("a/b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void dockersCgroupParentIsThePathForCgroupfsAndTheSliceForSystemd() {
    CgroupName pod = name("kubepods", "burstable", "pod1234-abcd");
    assertThat(CgroupDriver.CGROUPFS.dockerCgroupParent(pod))
        .isEqualTo("/kubepods/burstable/pod1234-abcd");
    assertThat(CgroupDriver.SYSTEMD.path(pod))
        .isEqualTo(
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_abcd.slice");
    assertThat(CgroupDriver.SYSTEMD.dockerCgroupParent(pod))
        .isEqualTo("kubepods-burstable-pod1234_abcd.slice");
    assertThat(CgroupDriver.SYSTEMD.parse("/kubepods.slice/kubepods-burstable.slice"))
        .isEqualTo(name("kubepods", "burstable"));
    assertThatThrownBy(() -> CgroupDriver.of("docker"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("cgroupDriver: must be cgroupfs or systemd, got \"docker\"");
  }

  @Test
  void podCgroupsSitUnderTheirTierAndCgroupRootIsHonoured() {
    CgroupOptions custom =
        new CgroupOptions(
            new CgroupSettings(
                true,
                "/jkubelet",
                "systemd",
                true,
                CgroupOptions.DEFAULT_CFS_PERIOD,
                -1,
                List.of("pods")),
            CgroupOptions.DEFAULT_CGROUP_FS);
    assertThat(custom.kubepods()).isEqualTo(name("jkubelet", "kubepods"));
    QosCgroups qos = new QosCgroups(null, custom.kubepods());
    PodCgroups pods = new PodCgroups(null, qos, custom);
    assertThat(pods.cgroupParent(pod("ab-12", container("", "", "", ""))))
        .isEqualTo("jkubelet-kubepods-besteffort-podab_12.slice");
    assertThat(pods.cgroupParent(pod("ab-12", container("1", "1Gi", "1", "1Gi"))))
        .isEqualTo("jkubelet-kubepods-podab_12.slice");

    QosCgroups atRoot = new QosCgroups(null, CgroupOptions.DEFAULTS.kubepods());
    PodCgroups cgroupfs = new PodCgroups(null, atRoot, CgroupOptions.DEFAULTS);
    assertThat(cgroupfs.cgroupParent(pod("ab-12", container("1", "", "", ""))))
        .isEqualTo("/kubepods/burstable/podab-12");
    assertThat(cgroupfs.cgroupParent(pod("ab-12", container("1", "1Gi", "1", "1Gi"))))
        .isEqualTo("/kubepods/podab-12");
  }
}
