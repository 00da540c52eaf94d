package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.util.StatFs;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reservations and node-pressure eviction against the real API server and Docker, with real
 * pressure made on this machine and set relative to what it has: {@code kubepods} under a cgroup
 * root of the test's own is given a small limit by a {@code kubeReserved} of all but 1.5 GiB of the
 * machine's memory, so a pod allocating a few hundred MiB crosses {@code
 * allocatableMemory.available}; the disk is a small tmpfs mounted as {@code --root-dir}.
 */
@Timeout(420)
class EvictionE2EIT {
  private static final long MI = 1L << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String node = "ev-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "ev-" + UUID.randomUUID().toString().substring(0, 8);
  private final TestCgroupRoot cgroupRoot = new TestCgroupRoot();
  private Path tmp;
  private Path manifests;
  private boolean tmpfs;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-eviction");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    Kubectl.createNamespace(ns);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    Kubectl.run("-n", "default", "delete", "pod", "static-hog-" + node, "--wait=false");
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
    if (tmpfs) {
      new ProcessBuilder("umount", tmp.resolve("root").toString()).start().waitFor();
    }
    cgroupRoot.close();
  }

  // --- fixtures ---

  private void start(List<String> flags) throws Exception {
    List<String> all = new ArrayList<>();
    all.addAll(
        List.of("--kubeconfig", Kubectl.nodeKubeconfig(node).toString(), "--node-ip", "127.0.0.1"));
    all.addAll(flags);
    jkubelet =
        new JkubeletProcess(node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"), all)
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> Kubectl.run("get", "node", node, "--no-headers").ok().out().contains(" Ready "));
  }

  private JsonNode nodeJson() throws Exception {
    return JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out());
  }

  private String condition(String type) throws Exception {
    for (JsonNode c : nodeJson().at("/status/conditions")) {
      if (c.get("type").asText().equals(type)) {
        return c.get("status").asText() + " " + c.get("reason").asText();
      }
    }
    return "none";
  }

  private JsonNode pod(String name) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", name, "-o", "json").ok().out());
  }

  /** A 96 MiB tmpfs as the root dir: filling it is cheap and safe. */
  private void tmpfsRootDir() throws Exception {
    Path rootDir = Files.createDirectories(tmp.resolve("root"));
    Process m =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", rootDir.toString())
            .inheritIO()
            .start();
    assertThat(m.waitFor()).isZero();
    tmpfs = true;
  }

  /** The pod once it has failed, within {@code seconds}. */
  private JsonNode failed(String name, int seconds) {
    return await()
        .atMost(Duration.ofSeconds(seconds))
        .ignoreExceptions()
        .until(() -> pod(name), p -> p.at("/status/phase").asText().equals("Failed"));
  }

  /** Waits until the Node's condition {@code type} reads {@code expected} ("status reason"). */
  private void awaitCondition(String type, String expected, int seconds) {
    await()
        .atMost(Duration.ofSeconds(seconds))
        .untilAsserted(() -> assertThat(condition(type)).isEqualTo(expected));
  }

  private static long bytes(JsonNode q) {
    return Quantity.getAmountInBytes(new Quantity(q.asText())).longValueExact();
  }

  private static long memTotalBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no MemTotal");
  }

  /** One container of a pod's list, each line indented by two spaces. */
  private static String container(String name, String command, String resources) {
    return "  - name: "
        + name
        + "\n    image: jkubelet/busybox:1.35\n    command: [sh, -c, '"
        + command
        + "']\n    resources: "
        + resources;
  }

  /** Allocates {@code mib} and holds it: dd's buffer stays while it waits on the full pipe. */
  static String hold(long mib) {
    return "dd if=/dev/zero bs=" + mib + "M count=1 2>/dev/null | sleep 3600";
  }

  // --- tests ---

  @Test
  void allocatableIsCapacityLessTheReservationsAndKubepodsIsLimitedToIt() throws Exception {
    cgroupRoot.make();
    start(
        List.of(
            "--cgroup-root",
            cgroupRoot.path(),
            "--kube-reserved=cpu=500m,memory=2Gi",
            "--system-reserved=memory=1Gi,ephemeral-storage=1Gi",
            "--eviction-hard=memory.available<300Mi,nodefs.available<1%"));

    JsonNode status = nodeJson().get("status");
    JsonNode cap = status.get("capacity");
    JsonNode alloc = status.get("allocatable");
    long hugePages = 0;
    for (var it = cap.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (k.startsWith("hugepages-")) {
        hugePages += bytes(cap.get(k));
      }
    }
    assertThat(bytes(alloc.get("memory")))
        .isEqualTo(bytes(cap.get("memory")) - (3L << 30) - 300 * MI - hugePages);
    assertThat(new Quantity(alloc.get("cpu").asText()).getNumericalAmount())
        .isEqualByComparingTo(
            new Quantity(cap.get("cpu").asText())
                .getNumericalAmount()
                .subtract(new BigDecimal("0.5")));
    long storage = bytes(cap.get("ephemeral-storage"));
    assertThat(bytes(alloc.get("ephemeral-storage")))
        .isEqualTo(storage - (1L << 30) - (long) ((double) storage * (double) 0.01f));
    assertThat(alloc.get("pods").asText()).isEqualTo(cap.get("pods").asText());

    // kubepods: the capacity less both reservations (not the eviction threshold), page-rounded.
    Path limit = cgroupRoot.kubepodsMemory();
    assertThat(Long.parseLong(Files.readString(limit.resolve("memory.limit_in_bytes")).trim()))
        .isEqualTo((memTotalBytes() - (3L << 30)) / 4096 * 4096);
  }

  @Test
  void aBestEffortPodPastTheMemoryThresholdIsEvictedWhileTheOthersRunOn() throws Exception {
    cgroupRoot.make();
    long reserved = memTotalBytes() - 1536 * MI; // kubepods gets 1.5 GiB
    // A static BestEffort pod, the largest user, is ranked first and never evicted.
    Files.writeString(
        manifests.resolve("static.yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: static-hog}
        spec:
          terminationGracePeriodSeconds: 1
          containers:
        %s
        """
            .formatted(container("hog", hold(700), "{}")));
    start(
        List.of(
            "--cgroup-root",
            cgroupRoot.path(),
            "--kube-reserved=memory=" + reserved,
            "--eviction-hard=memory.available<500Mi",
            "--eviction-pressure-transition-period=30s"));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "guaranteed",
            node,
            container(
                "app",
                "sleep 3600",
                "{requests: {cpu: 50m, memory: 64Mi}, limits: {cpu: 50m, memory: 64Mi}}")));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "burstable", node, container("app", "sleep 3600", "{requests: {memory: 32Mi}}")));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                Kubectl.run("-n", ns, "get", "pods", "--no-headers")
                        .ok()
                        .out()
                        .lines()
                        .filter(l -> l.contains("Running"))
                        .count()
                    == 2);
    assertThat(condition("MemoryPressure")).isEqualTo("False KubeletHasSufficientMemory");

    // The BestEffort hog: 400 MiB more leaves kubepods below 500 MiB available.
    Kubectl.apply(ns, Kubectl.boundPod("hog", node, container("hog", hold(400), "{}")));

    JsonNode hog = failed("hog", 90);
    assertThat(hog.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(hog.at("/status/message").asText())
        .matches(
            "The node was low on resource: memory\\. Container hog was using \\d+(Ki|Mi)?, which"
                + " exceeds its request of 0\\. ");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Kubectl.events(ns, "hog"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.get("reason").asText()).isEqualTo("Evicted");
                          assertThat(e.get("type").asText()).isEqualTo("Warning");
                        }));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(condition("MemoryPressure"))
                  .isEqualTo("True KubeletHasInsufficientMemory");
              assertThat(Kubectl.events("default", node))
                  .extracting(e -> e.get("reason").asText())
                  .contains("EvictionThresholdMet", "NodeHasInsufficientMemory");
            });

    // Under MemoryPressure a new BestEffort pod is refused, as upstream.
    Kubectl.apply(ns, Kubectl.boundPod("late", node, container("app", "sleep 3600", "{}")));
    JsonNode late = failed("late", 30);
    assertThat(late.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(late.at("/status/message").asText())
        .isEqualTo("Pod The node had condition: [MemoryPressure]. ");

    // The Guaranteed, Burstable and static pods run on, never restarted; the pressure clears.
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(condition("MemoryPressure"))
                    .isEqualTo("False KubeletHasSufficientMemory"));
    for (String name : List.of("guaranteed", "burstable")) {
      JsonNode p = pod(name);
      assertThat(p.at("/status/phase").asText()).as(name).isEqualTo("Running");
      assertThat(p.at("/status/containerStatuses/0/restartCount").asInt()).as(name).isZero();
    }
    JsonNode mirror =
        JSON.readTree(
            Kubectl.run("-n", "default", "get", "pod", "static-hog-" + node, "-o", "json")
                .ok()
                .out());
    assertThat(mirror.at("/status/phase").asText()).isEqualTo("Running");
    assertThat(mirror.at("/status/containerStatuses/0/restartCount").asInt()).isZero();
    assertThat(jkubelet.log()).contains("cannot evict a critical pod");
    String metrics = jkubelet.get("/metrics").body();
    assertThat(metrics)
        .contains("kubelet_evictions{eviction_signal=\"allocatableMemory.available\"} 1");
    assertThat(metrics).contains("kubelet_eviction_stats_age_seconds_count");
  }

  @Test
  void aFullRootDirSetsDiskPressureEvictsTheWriterAndClears() throws Exception {
    tmpfsRootDir();
    start(
        List.of(
            "--eviction-hard=memory.available<100Mi,nodefs.available<40Mi",
            "--eviction-pressure-transition-period=5s"));
    assertThat(condition("DiskPressure")).isEqualTo("False KubeletHasNoDiskPressure");

    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "writer",
            node,
            "  - name: scratch\n    emptyDir: {}",
            container("app", "dd if=/dev/zero of=/scratch/fill bs=1M count=64; sleep 3600", "{}")
                + "\n    volumeMounts: [{name: scratch, mountPath: /scratch}]"));

    JsonNode writer = failed("writer", 90);
    assertThat(writer.at("/status/reason").asText()).isEqualTo("Evicted");
    // Its volume is on the root dir: the message names no container (its layer and logs are tiny
    // but more than its request of 0, so upstream's "Container app was using ..." may follow).
    assertThat(writer.at("/status/message").asText())
        .startsWith("The node was low on resource: ephemeral-storage. ");
    awaitCondition("DiskPressure", "True KubeletHasDiskPressure", 30);
    assertThat(jkubelet.log()).contains("attempting to reclaim ephemeral-storage");

    // The pod's deletion frees its volume: the pressure clears after the transition period.
    Kubectl.run("-n", ns, "delete", "pod", "writer", "--wait=false").ok();
    awaitCondition("DiskPressure", "False KubeletHasNoDiskPressure", 90);
  }

  @Test
  void aContainerFillingItsWritableLayerIsEvictedUnderImagefsPressureAndNamed() throws Exception {
    // The root dir on its own small file system: the engine's root (its images and the
    // containers' writable layers) is a dedicated image file system, as on many real nodes.
    tmpfsRootDir();
    Path engineRoot = Path.of(TestDocker.client().infoCmd().exec().getDockerRootDir());
    long free = StatFs.of(engineRoot).availableBytes();
    long thresholdMi = (free - 400 * MI) / MI; // crossed once about 400 MiB more are written
    start(
        List.of(
            "--eviction-hard=memory.available<100Mi,imagefs.available<" + thresholdMi + "Mi",
            // The evicted pod's layer goes with the next reclaim, a second later: the condition
            // stays this long after, and reaches the Node within a second (not at the next
            // status update, 10 s apart).
            "--eviction-pressure-transition-period=5s",
            // The engine's images are every test's: reclaim must not take them.
            "--minimum-image-ttl-duration=1h"));
    Kubectl.apply(
        ns, Kubectl.boundPod("bystander", node, "", container("app", "sleep 3600", "{}")));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> pod("bystander").at("/status/phase").asText().equals("Running"));

    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "layer-writer",
            node,
            "",
            // Writes after its first seconds: dd fills 400 MiB in well under a second, and a
            // container younger than the last relist (1 s) is in no summary yet, so the eviction
            // message could not name it.
            container(
                "app", "sleep 3; dd if=/dev/zero of=/fill bs=1M count=1024; sleep 3600", "{}")));

    JsonNode writer = failed("layer-writer", 90);
    assertThat(writer.at("/status/reason").asText()).isEqualTo("Evicted");
    String message = writer.at("/status/message").asText();
    assertThat(message)
        .startsWith("The node was low on resource: ephemeral-storage. Container app was using ")
        .endsWith(", which exceeds its request of 0. ");
    String used = message.replaceAll(".*was using (\\S+), which.*", "$1");
    assertThat(Quantity.getAmountInBytes(new Quantity(used)).longValue())
        .as("the writable layer's usage, from " + message)
        .isGreaterThan(300 * MI);
    awaitCondition("DiskPressure", "True KubeletHasDiskPressure", 30);
    assertThat(pod("bystander").at("/status/phase").asText()).isEqualTo("Running");
    assertThat(jkubelet.log()).doesNotContain("ImageGC: removing image");

    // The next reclaim removes the evicted pod's dead container and its layer: the pressure clears.
    awaitCondition("DiskPressure", "False KubeletHasNoDiskPressure", 60);
    assertThat(pod("layer-writer").at("/status/phase").asText()).isEqualTo("Failed");
    assertThat(pod("bystander").at("/status/phase").asText()).isEqualTo("Running");
  }

  @Test
  void podsPastTheirLocalStorageLimitsAreEvictedWithoutAnyPressure() throws Exception {
    start(List.of("--eviction-hard=memory.available<100Mi"));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "sized",
            node,
            "  - name: scratch\n    emptyDir: {sizeLimit: 10Mi}",
            container("app", "dd if=/dev/zero of=/scratch/fill bs=1M count=20; sleep 3600", "{}")
                + "\n    volumeMounts: [{name: scratch, mountPath: /scratch}]"));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "limited",
            node,
            "",
            container(
                "app",
                "dd if=/dev/zero of=/fill bs=1M count=20; sleep 3600",
                "{limits: {ephemeral-storage: 10Mi}}")));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "calm",
            node,
            "",
            container("app", "sleep 3600", "{limits: {ephemeral-storage: 100Mi}}")));

    // Disk usage is measured once a minute, as upstream's: an eviction comes within about 70 s.
    JsonNode sized = failed("sized", 120);
    assertThat(sized.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(sized.at("/status/message").asText())
        .isEqualTo("Usage of EmptyDir volume \"scratch\" exceeds the limit \"10Mi\". ");
    JsonNode limited = failed("limited", 120);
    assertThat(limited.at("/status/reason").asText()).isEqualTo("Evicted");
    // Its writable layer counts: the root dir and Docker's data root share this machine's disk.
    assertThat(limited.at("/status/message").asText())
        .isEqualTo(
            "Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. ");
    assertThat(pod("calm").at("/status/phase").asText()).isEqualTo("Running");
    assertThat(condition("DiskPressure")).isEqualTo("False KubeletHasNoDiskPressure");
    String events = Kubectl.run("-n", ns, "get", "events", "-o", "json").ok().out();
    assertThat(events).contains("Usage of EmptyDir volume", "\"reason\": \"Evicted\"");
    assertThat(jkubelet.get("/metrics").body())
        .contains("kubelet_evictions{eviction_signal=\"emptydirfs.limit\"} 1")
        .contains("kubelet_evictions{eviction_signal=\"ephemeralpodfs.limit\"} 1");
  }
}
