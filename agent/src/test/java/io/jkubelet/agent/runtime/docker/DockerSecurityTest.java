package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.e2e.TestDockerAccess;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerConfig.NamespaceMode;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.util.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security context and termination messages on the real engine, looked at from inside the
 * container ({@code id}, {@code /proc/1/status}) and through the runtime's status. Every container
 * carries this test's node label, and only those (and the one image it commits) are removed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DockerSecurityTest {
  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final String PAUSE = "jkubelet/pause:3.2";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final String node = "security-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
          .scopedTo(Map.of(Labels.NODE, node));
  private final DockerClient docker = TestDockerAccess.client();
  private String committedImage;

  @AfterEach
  void removeThisTestsContainers() throws Exception {
    try {
      for (Container c :
          docker
              .listContainersCmd()
              .withShowAll(true)
              .withLabelFilter(Map.of(Labels.NODE, node))
              .exec()) {
        docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
      }
      if (committedImage != null) {
        docker.removeImageCmd(committedImage).withForce(true).exec();
      }
    } finally {
      runtime.close();
      docker.close();
    }
  }

  @Test
  void userGroupsCapabilitiesNoNewPrivilegesAndAReadOnlyRootReachTheProcess() {
    PodRef pod = newPod();
    String sandbox = runtime.runPodSandbox(sandbox(pod, SandboxConfig.Security.DEFAULT));
    var security =
        new ContainerConfig.Security(
            "1234:5678",
            List.of(1000L, 2000L),
            false,
            new ContainerConfig.Capabilities(List.of("NET_ADMIN"), List.of("ALL")),
            true,
            true,
            "",
            new ContainerConfig.Namespaces(NamespaceMode.CONTAINER, false));
    String id = start(sandbox, app(pod, "app", security));

    assertThat(exec(id, "id").output().strip())
        .isEqualTo("uid=1234 gid=5678 groups=1000,2000,5678");
    String status = exec(id, "cat /proc/1/status").output();
    assertThat(status).contains("NoNewPrivs:\t1").contains("Seccomp:\t0");
    // A non-root user has no effective capabilities; the bounding set is what the engine allows.
    assertThat(field(status, "CapBnd")).isEqualTo("0000000000001000"); // CAP_NET_ADMIN alone
    ExecResult write = exec(id, "touch /written");
    assertThat(write.exitCode()).isNotZero();
    assertThat(write.output()).contains("Read-only file system");
    assertThat(docker.inspectContainerCmd(id).exec().getHostConfig().getSecurityOpts())
        .containsExactlyInAnyOrder("seccomp=unconfined", "no-new-privileges");
  }

  @Test
  void theRuntimeDefaultProfileFiltersAndPrivilegedReachesTheEngine() {
    PodRef pod = newPod();
    String sandbox = runtime.runPodSandbox(sandbox(pod, SandboxConfig.Security.DEFAULT));
    String id = start(sandbox, app(pod, "app", seccomp("runtime/default")));
    assertThat(exec(id, "cat /proc/1/status").output()).contains("Seccomp:\t2");
    assertThat(docker.inspectContainerCmd(id).exec().getHostConfig().getSecurityOpts()).isNull();

    // Created only: hosts whose engine runs without every capability cannot start it.
    var privileged =
        new ContainerConfig.Security(
            "",
            List.of(),
            true,
            new ContainerConfig.Capabilities(List.of(), List.of()),
            false,
            false,
            "",
            new ContainerConfig.Namespaces(NamespaceMode.NODE, true));
    String p = runtime.createContainer(sandbox, app(pod, "privileged", privileged));
    var host = docker.inspectContainerCmd(p).exec().getHostConfig();
    assertThat(host.getPrivileged()).isTrue();
    assertThat(host.getPidMode()).isEqualTo("host");
    assertThat(host.getUtSMode()).isEqualTo("host");
  }

  @Test
  void aLocalhostProfileIsLoadedAndAMissingOneFailsTheCreate(@TempDir Path dir) throws Exception {
    Path profile = dir.resolve("deny-nothing.json");
    Files.writeString(profile, "{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\"\n}\n");
    PodRef pod = newPod();
    String sandbox = runtime.runPodSandbox(sandbox(pod, SandboxConfig.Security.DEFAULT));
    String id = start(sandbox, app(pod, "app", seccomp("localhost/" + profile)));
    assertThat(exec(id, "cat /proc/1/status").output()).contains("Seccomp:\t2");

    assertThatThrownBy(
            () ->
                runtime.createContainer(
                    sandbox, app(pod, "other", seccomp("localhost/" + dir.resolve("none.json")))))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(RuntimeError.Kind.CREATE);
              assertThat(e.getMessage()).contains("cannot load seccomp profile");
            });
  }

  @Test
  void aSharedProcessNamespaceShowsThePauseProcessAndSandboxSysctlsApply() {
    PodRef pod = newPod();
    var podSecurity =
        new SandboxConfig.Security(
            null,
            null,
            List.of(),
            false,
            false,
            Map.of("net.ipv4.ip_local_port_range", "20000 30000"));
    String sandbox = runtime.runPodSandbox(sandbox(pod, podSecurity));
    var shared =
        new ContainerConfig.Security(
            "",
            List.of(),
            false,
            new ContainerConfig.Capabilities(List.of(), List.of()),
            false,
            false,
            "",
            new ContainerConfig.Namespaces(NamespaceMode.POD, false));
    String id = start(sandbox, app(pod, "app", shared));

    assertThat(exec(id, "cat /proc/1/cmdline").output()).doesNotContain("sleep");
    assertThat(exec(id, "cat /proc/sys/net/ipv4/ip_local_port_range").output())
        .matches("20000\\s+30000\\s*");
    assertThat(docker.inspectContainerCmd(sandbox).exec().getHostConfig().getSecurityOpts())
        .containsExactly("no-new-privileges");
  }

  @Test
  void theImagesConfiguredUserIsReported() {
    String base =
        docker.createContainerCmd(BUSYBOX).withLabels(Map.of(Labels.NODE, node)).exec().getId();
    committedImage = "jkubelet-test/user:" + node;
    String[] repoTag = committedImage.split(":");
    docker
        .commitCmd(base)
        .withRepository(repoTag[0])
        .withTag(repoTag[1])
        .withUser("1001:50")
        .exec();
    assertThat(runtime.imageUser(committedImage)).isEqualTo("1001:50");
  }

  @Test
  void theTerminationMessageFileAndOnErrorTheLogTailBecomeTheMessage(@TempDir Path dir)
      throws Exception {
    PodRef pod = newPod();
    String sandbox = runtime.runPodSandbox(sandbox(pod, SandboxConfig.Security.DEFAULT));
    Path file = Files.createFile(dir.resolve("0000abcd"));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    String written =
        start(
            sandbox,
            terminating(
                pod, "written", "echo -n bye > /dev/termination-log; exit 3", file, "File"));
    String logged =
        start(
            sandbox,
            terminating(
                pod,
                "logged",
                "for i in $(seq 1 200); do echo line-$i; done; exit 1",
                null,
                "FallbackToLogsOnError"));

    ContainerStatus w = awaitExited(pod, "written");
    ContainerStatus l = awaitExited(pod, "logged");

    assertThat(w.id()).isEqualTo(written);
    assertThat(w.message()).isEqualTo("bye");
    assertThat(l.id()).isEqualTo(logged);
    assertThat(l.message()).endsWith("line-199\nline-200\n").doesNotContain("line-120\n");
    assertThat(l.message().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(2048);
  }

  // ---------------------------------------------------------------------------------------------

  private ContainerStatus awaitExited(PodRef pod, String name) {
    return await()
        .atMost(WAIT)
        .until(() -> runtime.podStatus(pod).latest(name).orElseThrow(), ContainerStatus::exited);
  }

  private ExecResult exec(String id, String script) {
    return runtime.exec(id, List.of("sh", "-c", script + " 2>&1"), WAIT);
  }

  private static String field(String procStatus, String name) {
    return procStatus
        .lines()
        .filter(l -> l.startsWith(name + ":"))
        .map(l -> l.substring(name.length() + 1).strip())
        .findFirst()
        .orElseThrow();
  }

  private String start(String sandboxId, ContainerConfig config) {
    String id = runtime.createContainer(sandboxId, config);
    runtime.startContainer(id);
    return id;
  }

  private PodRef newPod() {
    String uid = UUID.randomUUID().toString();
    return new PodRef(uid, "pod-" + uid.substring(0, 8), "security");
  }

  private Map<String, String> labels(PodRef pod, String container, String type) {
    Map<String, String> labels = new HashMap<>(Labels.podLabels(pod, container, type));
    labels.put(Labels.NODE, node);
    return labels;
  }

  private SandboxConfig sandbox(PodRef pod, SandboxConfig.Security security) {
    return SandboxConfig.builder(pod, PAUSE)
        .attempt(0)
        .hostname(pod.name())
        .hostNetwork(false)
        .ports(List.of())
        .oomScoreAdj(0)
        .labels(labels(pod, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX))
        .cpuShares(2)
        .security(security)
        .build();
  }

  private static ContainerConfig.Security seccomp(String profile) {
    return new ContainerConfig.Security(
        "",
        List.of(),
        false,
        new ContainerConfig.Capabilities(List.of(), List.of()),
        false,
        false,
        profile,
        new ContainerConfig.Namespaces(NamespaceMode.CONTAINER, false));
  }

  private ContainerConfig app(PodRef pod, String name, ContainerConfig.Security security) {
    return ContainerConfig.builder(Labels.containerName(pod, name, 0), BUSYBOX)
        .entrypoint(List.of("sleep"))
        .cmd(List.of("3600"))
        .env(List.of())
        .workingDir("")
        .mounts(List.of())
        .resources(ContainerConfig.Resources.NONE)
        .labels(labels(pod, name, Labels.TYPE_CONTAINER))
        .stdio(ContainerConfig.Stdio.NONE)
        .security(security)
        .build();
  }

  private ContainerConfig terminating(
      PodRef pod, String name, String script, Path file, String policy) {
    Map<String, String> labels = labels(pod, name, Labels.TYPE_CONTAINER);
    labels.put(Labels.TERMINATION_MESSAGE_PATH, "/dev/termination-log");
    labels.put(Labels.TERMINATION_MESSAGE_POLICY, policy);
    return ContainerConfig.builder(Labels.containerName(pod, name, 0), BUSYBOX)
        .entrypoint(List.of("sh", "-c"))
        .cmd(List.of(script))
        .env(List.of())
        .workingDir("")
        .mounts(
            file == null
                ? List.of()
                : List.of(
                    new ContainerConfig.Mount(
                        file.toString(),
                        "/dev/termination-log",
                        false,
                        ContainerConfig.Propagation.PRIVATE)))
        .resources(ContainerConfig.Resources.NONE)
        .labels(labels)
        .stdio(ContainerConfig.Stdio.NONE)
        .security(ContainerConfig.Security.DEFAULT)
        .build();
  }
}
