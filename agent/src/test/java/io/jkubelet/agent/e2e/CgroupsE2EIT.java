package io.jkubelet.agent.e2e;

import static io.jkubelet.agent.e2e.PressureNode.memTotalBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.Labels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pods in upstream's cgroup tree, read from this host's cgroup v1 file system: with a {@code
 * --cgroup-root} of the test's own (made before and removed after, in every hierarchy), each pod's
 * sandbox and containers run in {@code <root>/kubepods[/burstable|/besteffort]/pod<uid>}, whose
 * files hold the pod's limits; the tiers' shares follow the pods; {@code kubepods} is limited to
 * the node's allocatable; housekeeping removes a gone pod's cgroup; a restart of jkubelet leaves
 * the pods running; a pod started without cgroups is started again inside the tree.
 */
@Timeout(300)
class CgroupsE2EIT {
  /** What the pod sync logs when it kills a pod found running outside its cgroup. */
  private static final String RUN_OUTSIDE = "its containers run outside the pod's cgroup";

  private static final Path CGROUP_FS = Path.of("/sys/fs/cgroup");

  private final String node = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
  private final TestCgroupRoot cgroupRoot = new TestCgroupRoot();
  private final String root = cgroupRoot.path();
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    // The root exists in every hierarchy, as upstream requires of --cgroup-root.
    cgroupRoot.make();
    tmp = Files.createTempDirectory("jkubelet-cgroups");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    TestDocker.removeAll(docker, Labels.NODE, node);
    cgroupRoot.close(); // the engine removes a container's cgroups as it removes it
  }

  private JkubeletProcess start(List<String> flags) throws Exception {
    jkubelet =
        new JkubeletProcess(
                node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"), flags)
            .start();
    jkubelet.awaitHealthy();
    return jkubelet;
  }

  private List<String> withCgroups() {
    return List.of("--cgroup-root", root);
  }

  /** The file of the cgroup {@code <root>/<rel>} in a hierarchy, e.g. {@code cpu}. */
  private Path file(String hierarchy, String rel, String name) {
    return CGROUP_FS.resolve(hierarchy).resolve(root.substring(1)).resolve(rel).resolve(name);
  }

  private long read(String hierarchy, String rel, String name) throws IOException {
    return Long.parseLong(Files.readString(file(hierarchy, rel, name)).trim());
  }

  private void pod(String name, String resources) throws IOException {
    Files.writeString(
        manifests.resolve(name + ".yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          terminationGracePeriodSeconds: 1
          containers:
          - name: app
            image: jkubelet/busybox:1.35
            command: [sleep, '3600']
            resources: %s
        """
            .formatted(name, resources));
  }

  private Pod running(String name) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () -> jkubelet.pod(name + "-" + node).orElseThrow(),
            p -> app(p).getState().getRunning() != null);
  }

  private static ContainerStatus app(Pod p) {
    return p.getStatus().getContainerStatuses().get(0);
  }

  private static String containerId(Pod p) {
    return app(p).getContainerID().substring("docker://".length());
  }

  /** The pod's containers in the engine, sandbox included: id → cgroup parent. */
  private Map<String, String> parents(Pod p) {
    Map<String, String> out = new java.util.HashMap<>();
    for (Container c :
        TestDocker.withLabels(docker, Map.of(Labels.POD_UID, p.getMetadata().getUid()))) {
      if ("running".equals(c.getState())) {
        out.put(
            c.getId(),
            docker.inspectContainerCmd(c.getId()).exec().getHostConfig().getCgroupParent());
      }
    }
    return out;
  }

  /** Running containers of this node: id → name. */
  private Map<String, String> runningContainers() {
    return TestDocker.withLabels(docker, Map.of(Labels.NODE, node)).stream()
        .filter(c -> "running".equals(c.getState()))
        .collect(Collectors.toMap(Container::getId, c -> c.getNames()[0]));
  }

  private static long shares(long milliCpu) {
    return Math.max(2, milliCpu * 1024 / 1000);
  }

  @Test
  void podsRunInTheirQosCgroupsWithTheirLimitsAndARestartKeepsThemRunning() throws Exception {
    pod("guaranteed", "{requests: {cpu: 200m, memory: 64Mi}, limits: {cpu: 200m, memory: 64Mi}}");
    pod("burstable-a", "{requests: {cpu: 100m, memory: 32Mi}, limits: {memory: 64Mi}}");
    pod("burstable-b", "{requests: {cpu: 300m}}");
    pod("besteffort", "{}");
    start(withCgroups());

    Pod guaranteed = running("guaranteed");
    // No --cgroup-driver: Docker's own, as upstream v1.28+ takes the runtime's.
    assertThat(jkubelet.log())
        .contains(
            "ContainerManager: cgroup driver "
                + docker.infoCmd().exec().getCGroupDriver()
                + ", Docker's (docker info; --cgroup-driver not given)");
    Pod burstableA = running("burstable-a");
    Pod burstableB = running("burstable-b");
    Pod bestEffort = running("besteffort");

    // kubepods: the node's allocatable, which reserves nothing: all cpus, memory and pids.
    long memTotal = memTotalBytes();
    assertThat(read("memory", "kubepods", "memory.limit_in_bytes"))
        .isEqualTo(memTotal / 4096 * 4096);
    assertThat(read("cpu", "kubepods", "cpu.shares"))
        .isEqualTo(shares(Runtime.getRuntime().availableProcessors() * 1000L));
    assertThat(read("pids", "kubepods", "pids.max"))
        .isEqualTo(Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0)));

    // Guaranteed: directly in kubepods, with the pod's cpu quota and memory limit.
    String g = "kubepods/pod" + guaranteed.getMetadata().getUid();
    assertThat(read("cpu", g, "cpu.cfs_quota_us")).isEqualTo(20_000);
    assertThat(read("cpu", g, "cpu.cfs_period_us")).isEqualTo(100_000);
    assertThat(read("cpu", g, "cpu.shares")).isEqualTo(shares(200));
    assertThat(read("memory", g, "memory.limit_in_bytes")).isEqualTo(64L << 20);
    assertThat(parents(guaranteed)).hasSize(2).containsValue(root + "/" + g);
    assertThat(parents(guaranteed).values()).containsOnly(root + "/" + g);
    assertThat(file("cpu", g + "/" + containerId(guaranteed), "cpu.shares")).exists();
    assertThat(file("memory", g + "/" + containerId(guaranteed), "memory.limit_in_bytes")).exists();

    // Burstable and BestEffort under their tiers.
    String a = "kubepods/burstable/pod" + burstableA.getMetadata().getUid();
    String b = "kubepods/burstable/pod" + burstableB.getMetadata().getUid();
    String e = "kubepods/besteffort/pod" + bestEffort.getMetadata().getUid();
    assertThat(parents(burstableA).values()).hasSize(2).containsOnly(root + "/" + a);
    assertThat(parents(burstableB).values()).hasSize(2).containsOnly(root + "/" + b);
    assertThat(parents(bestEffort).values()).hasSize(2).containsOnly(root + "/" + e);
    assertThat(file("cpu", a + "/" + containerId(burstableA), "cpu.shares")).exists();
    assertThat(file("cpu", e + "/" + containerId(bestEffort), "cpu.shares")).exists();
    assertThat(read("memory", a, "memory.limit_in_bytes")).isEqualTo(64L << 20);
    assertThat(read("cpu", a, "cpu.shares")).isEqualTo(shares(100));
    assertThat(read("cpu", "kubepods/besteffort", "cpu.shares")).isEqualTo(2);
    assertThat(read("cpu", e, "cpu.shares")).isEqualTo(2);
    assertThat(read("cpu", "kubepods/burstable", "cpu.shares")).isEqualTo(shares(400));

    // The stats find the containers below their pod's cgroup.
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              var summary =
                  new com.fasterxml.jackson.databind.ObjectMapper()
                      .readTree(jkubelet.get("/stats/summary").body());
              var pod =
                  java.util.stream.StreamSupport.stream(summary.get("pods").spliterator(), false)
                      .filter(p -> p.at("/podRef/name").asText().equals("guaranteed-" + node))
                      .findFirst()
                      .orElseThrow();
              assertThat(pod.at("/containers/0/cpu/usageCoreNanoSeconds").asLong()).isPositive();
              assertThat(pod.at("/memory/workingSetBytes").asLong()).isPositive();
              assertThat(pod.at("/network/name").asText()).isEqualTo("eth0");
            });

    // A Burstable pod goes: its tier's shares follow, and housekeeping removes its cgroup.
    Files.delete(manifests.resolve("burstable-b.yaml"));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(read("cpu", "kubepods/burstable", "cpu.shares")).isEqualTo(shares(100));
              assertThat(file("cpu", b, "")).doesNotExist();
              assertThat(file("memory", b, "")).doesNotExist();
            });
    assertThat(file("cpu", a, "")).isDirectory();

    // A restart of jkubelet keeps every pod running: the same containers, nothing restarted.
    Map<String, String> before = runningContainers();
    assertThat(before).hasSize(6); // three sandboxes and three containers
    // As counted before the restart: a first start the runtime refused under load (runc's
    // "can't get final child's PID from pipe", seen once) is one restart that is not the agent's.
    Map<String, Integer> restarts = restartCounts();
    jkubelet.stop();
    start(withCgroups());
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> jkubelet.pods().size() == 3 && jkubelet.pods().stream().allMatch(this::up));
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(runningContainers()).isEqualTo(before);
              assertThat(restartCounts()).isEqualTo(restarts);
            });
    // The manager's start line is there (the log reads as expected), the kill line is not; the
    // next test sees the kill line, so a change to its wording fails there.
    assertThat(jkubelet.log()).contains("ContainerManager: cgroup ").doesNotContain(RUN_OUTSIDE);
  }

  private Map<String, Integer> restartCounts() {
    Map<String, Integer> out = new java.util.TreeMap<>();
    for (Pod p : jkubelet.pods()) {
      out.put(p.getMetadata().getName(), app(p).getRestartCount());
    }
    return out;
  }

  private boolean up(Pod p) {
    return p.getStatus().getContainerStatuses() != null
        && !p.getStatus().getContainerStatuses().isEmpty()
        && app(p).getState().getRunning() != null;
  }

  @Test
  void aPodStartedWithoutCgroupsIsStartedAgainInTheTreeWhenCgroupsAreTurnedOn() throws Exception {
    pod("web", "{requests: {cpu: 100m}}");
    start(List.of("--cgroups-per-qos=false", "--enforce-node-allocatable="));
    Pod before = running("web");
    assertThat(parents(before).values()).hasSize(2).containsOnly("");
    assertThat(file("cpu", "kubepods", "")).doesNotExist();
    List<String> oldIds = new ArrayList<>(parents(before).keySet());

    jkubelet.stop();
    start(withCgroups());

    String pod = "kubepods/burstable/pod" + before.getMetadata().getUid();
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Pod after = jkubelet.pod("web-" + node).orElseThrow();
              assertThat(app(after).getState().getRunning()).isNotNull();
              Map<String, String> parents = parents(after);
              assertThat(parents).hasSize(2).doesNotContainKeys(oldIds.toArray(String[]::new));
              assertThat(parents.values()).containsOnly(root + "/" + pod);
            });
    assertThat(read("cpu", pod, "cpu.shares")).isEqualTo(shares(100));
    assertThat(runningContainers()).doesNotContainKeys(oldIds.toArray(String[]::new));
    assertThat(jkubelet.log()).contains(RUN_OUTSIDE);
  }
}
