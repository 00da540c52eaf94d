package io.jkubelet.agent.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SysctlsTest {
  private static final Sysctls NODE = Sysctls.allowing(List.of("kernel.msgmax", "net.core.*"));

  private static Pod pod(String sysctl, boolean hostNetwork, boolean hostIpc) {
    Pod p =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: ns, uid: u1}
            spec:
              securityContext: {sysctls: [{name: %s, value: '1'}]}
              containers: [{name: app, image: busybox}]
            """
                .formatted(sysctl));
    p.getSpec().setHostNetwork(hostNetwork);
    p.getSpec().setHostIPC(hostIpc);
    return p;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("safe", "net.ipv4.tcp_syncookies", false, false, null),
        Arguments.of("safe ipc", "kernel.shm_rmid_forced", false, false, null),
        Arguments.of("allowed by name", "kernel.msgmax", false, false, null),
        Arguments.of("allowed by prefix", "net.core.somaxconn", false, false, null),
        Arguments.of(
            "unsafe",
            "kernel.msgmnb",
            false,
            false,
            "forbidden sysctl: \"kernel.msgmnb\" not whitelisted"),
        Arguments.of(
            "net on the host's network",
            "net.ipv4.tcp_syncookies",
            true,
            false,
            "forbidden sysctl: \"net.ipv4.tcp_syncookies\" not allowed with host net enabled"),
        Arguments.of(
            "ipc with hostIPC",
            "kernel.msgmax",
            false,
            true,
            "forbidden sysctl: \"kernel.msgmax\" not allowed with host ipc enabled"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void podsMaySetSafeAndAllowedSysctlsOnly(
      String name, String sysctl, boolean hostNet, boolean hostIpc, String forbidden) {
    assertThat(NODE.forbidden(pod(sysctl, hostNet, hostIpc)))
        .isEqualTo(Optional.ofNullable(forbidden));
  }

  @Test
  void aMalformedOrNotNamespacedPatternIsRefusedWithUpstreamsMessage() {
    assertThatThrownBy(() -> Sysctls.allowing(List.of("vm.swappiness")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the sysctl \"vm.swappiness\" are not known to be namespaced");
    assertThatThrownBy(() -> Sysctls.allowing(List.of("kernel.*")))
        .hasMessage("the sysctls \"kernel.*\" are not known to be namespaced");
    assertThatThrownBy(() -> Sysctls.allowing(List.of("Net.Core")))
        .hasMessageStartingWith(
            "sysctl \"Net.Core\" must have at most 253 characters and match regex");
  }
}
