package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SecurityContextsTest {
  private static final Path ROOT = Path.of("/var/lib/kubelet/seccomp");
  private static final SecurityContexts.ImageUser ROOT_IMAGE = SecurityContexts.ImageUser.parse("");

  private static Pod pod(String podSecurity, String containerSecurity) {
    return TestPods.parse(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ns, uid: u1}
        spec:
          securityContext: %s
          containers:
          - name: app
            image: busybox
            securityContext: %s
        """
            .formatted(podSecurity, containerSecurity));
  }

  private static ContainerConfig.Security container(Pod pod, SecurityContexts.ImageUser image)
      throws StartException {
    return SecurityContexts.container(pod, pod.getSpec().getContainers().get(0), image, ROOT);
  }

  @Test
  void theContainerWinsOverThePodAndGroupsAreFsGroupThenSupplementalGroups() throws Exception {
    Pod pod =
        pod(
            "{runAsUser: 1000, runAsGroup: 2000, fsGroup: 3000, supplementalGroups: [4000, 5000]}",
            "{runAsUser: 1001, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false,"
                + " capabilities: {add: [NET_ADMIN], drop: [ALL]}}");

    ContainerConfig.Security s = container(pod, SecurityContexts.ImageUser.UNKNOWN);

    assertThat(s.user()).isEqualTo("1001:2000");
    assertThat(s.supplementalGroups()).containsExactly(3000L, 4000L, 5000L);
    assertThat(s.readOnlyRootfs()).isTrue();
    assertThat(s.noNewPrivileges()).isTrue();
    assertThat(s.capabilities().add()).containsExactly("NET_ADMIN");
    assertThat(s.capabilities().drop()).containsExactly("ALL");
    assertThat(s.privileged()).isFalse();
    assertThat(s.seccompProfile()).isEmpty(); // dockershim: unconfined
    assertThat(s.namespaces().pid()).isEqualTo(ContainerConfig.NamespaceMode.CONTAINER);
  }

  @Test
  void aGroupWithoutAUserTakesTheImagesUidAndNothingKeepsTheImagesUser() throws Exception {
    assertThat(
            container(pod("{runAsGroup: 7}", "{}"), SecurityContexts.ImageUser.parse("1000:1000"))
                .user())
        .isEqualTo("1000:7");
    assertThat(container(pod("{runAsGroup: 7}", "{}"), ROOT_IMAGE).user()).isEqualTo("0:7");
    assertThat(container(pod("{}", "{}"), SecurityContexts.ImageUser.UNKNOWN).user()).isEmpty();
    assertThat(
            container(pod("{}", "{allowPrivilegeEscalation: true}"), ROOT_IMAGE).noNewPrivileges())
        .isFalse();
  }

  static Stream<Arguments> nonRoot() {
    String where = " (pod: \"p_ns(u1)\", container: app)";
    return Stream.of(
        Arguments.of(
            "root image",
            "{runAsNonRoot: true}",
            "",
            "container has runAsNonRoot and image will run as root" + where),
        Arguments.of(
            "root uid with group in the image",
            "{runAsNonRoot: true}",
            "0:0",
            "container has runAsNonRoot and image will run as root" + where),
        Arguments.of(
            "named user",
            "{runAsNonRoot: true}",
            "nobody",
            "container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root"
                + where),
        Arguments.of(
            "runAsUser 0",
            "{runAsNonRoot: true, runAsUser: 0}",
            "1000",
            "container's runAsUser breaks non-root policy" + where),
        Arguments.of("numeric non-root image", "{runAsNonRoot: true}", "1000", null),
        Arguments.of("runAsUser over a root image", "{runAsNonRoot: true, runAsUser: 5}", "", null),
        Arguments.of("not asked", "{}", "", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nonRoot")
  void runAsNonRootIsCheckedAgainstTheImagesUser(
      String name, String podSecurity, String imageUser, String error) {
    Pod pod = pod(podSecurity, "{}");
    var c = pod.getSpec().getContainers().get(0);
    var user = SecurityContexts.ImageUser.parse(imageUser);
    if (error == null) {
      org.assertj.core.api.Assertions.assertThatCode(
              () -> SecurityContexts.verifyRunAsNonRoot(pod, c, user))
          .doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> SecurityContexts.verifyRunAsNonRoot(pod, c, user))
          .isInstanceOfSatisfying(
              StartException.class,
              e -> assertThat(e.reason()).isEqualTo(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR))
          .hasMessage(error);
    }
  }

  @Test
  void seccompFieldsWinOverAnnotationsAndTheContainerOverThePod() throws Exception {
    assertThat(
            container(pod("{seccompProfile: {type: RuntimeDefault}}", "{}"), ROOT_IMAGE)
                .seccompProfile())
        .isEqualTo("runtime/default");
    assertThat(
            container(
                    pod(
                        "{seccompProfile: {type: RuntimeDefault}}",
                        "{seccompProfile: {type: Unconfined}}"),
                    ROOT_IMAGE)
                .seccompProfile())
        .isEqualTo("unconfined");
    assertThat(
            container(
                    pod(
                        "{}",
                        "{seccompProfile: {type: Localhost, localhostProfile: profiles/audit.json}}"),
                    ROOT_IMAGE)
                .seccompProfile())
        .isEqualTo("localhost/" + ROOT.resolve("profiles/audit.json"));
    Pod annotated = pod("{}", "{}");
    annotated
        .getMetadata()
        .setAnnotations(
            Map.of(
                SecurityContexts.SECCOMP_POD_ANNOTATION,
                "runtime/default",
                SecurityContexts.SECCOMP_CONTAINER_ANNOTATION_PREFIX + "app",
                "localhost/x.json"));
    assertThat(container(annotated, ROOT_IMAGE).seccompProfile())
        .isEqualTo("localhost/" + ROOT.resolve("x.json"));
  }

  @Test
  void aLocalhostProfileOutsideTheProfileRootIsRefused() {
    Pod pod =
        pod("{}", "{seccompProfile: {type: Localhost, localhostProfile: ../../../etc/x.json}}");
    assertThatThrownBy(() -> container(pod, ROOT_IMAGE))
        .isInstanceOf(StartException.class)
        .hasMessageContaining("is not under " + ROOT);
  }

  @Test
  void podNamespacesAndSysctlsGoToTheSandboxAndThePidModeToContainers() throws Exception {
    Pod pod =
        pod(
            "{runAsUser: 1000, fsGroup: 3000, sysctls: [{name: net.ipv4.tcp_syncookies, value: '1'}]}",
            "{}");
    pod.getSpec().setShareProcessNamespace(true);
    pod.getSpec().setHostIPC(true);

    SandboxConfig.Security sandbox = SecurityContexts.sandbox(pod);
    assertThat(sandbox.runAsUser()).isEqualTo(1000L);
    assertThat(sandbox.supplementalGroups()).containsExactly(3000L);
    assertThat(sandbox.hostIpc()).isTrue();
    assertThat(sandbox.hostPid()).isFalse();
    assertThat(sandbox.sysctls()).containsExactly(Map.entry("net.ipv4.tcp_syncookies", "1"));
    assertThat(container(pod, ROOT_IMAGE).namespaces().pid())
        .isEqualTo(ContainerConfig.NamespaceMode.POD);

    pod.getSpec().setHostPID(true);
    assertThat(SecurityContexts.sandbox(pod).hostPid()).isTrue();
    assertThat(container(pod, ROOT_IMAGE).namespaces().pid())
        .isEqualTo(ContainerConfig.NamespaceMode.NODE);
  }

  @Test
  void theImagesUserParsesAsUpstreams() {
    assertThat(SecurityContexts.ImageUser.parse(""))
        .isEqualTo(new SecurityContexts.ImageUser(0L, ""));
    assertThat(SecurityContexts.ImageUser.parse("1000:50"))
        .isEqualTo(new SecurityContexts.ImageUser(1000L, ""));
    assertThat(SecurityContexts.ImageUser.parse("www:www"))
        .isEqualTo(new SecurityContexts.ImageUser(null, "www"));
  }
}
