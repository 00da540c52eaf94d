package io.jkubelet.agent.e2e;

import static io.jkubelet.agent.e2e.PressureNode.MI;
import static io.jkubelet.agent.e2e.PressureNode.container;
import static io.jkubelet.agent.e2e.PressureNode.memTotalBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.util.StatFs;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
  @RegisterExtension final PressureNode n = new PressureNode("ev");
  private final String node = n.node;
  private final String ns = n.ns;

  private static long bytes(JsonNode q) {
    return Quantity.getAmountInBytes(new Quantity(q.asText())).longValueExact();
  }

  /** Allocates {@code mib} and holds it: dd's buffer stays while it waits on the full pipe. */
  static String hold(long mib) {
    return "dd if=/dev/zero bs=" + mib + "M count=1 2>/dev/null | sleep 3600";
  }

  // --- tests ---

  @Test
  void allocatableIsCapacityLessTheReservationsAndKubepodsIsLimitedToIt() throws Exception {
    TestCgroupRoot cgroupRoot = n.cgroupRoot();
    n.start(
        List.of(
            "--cgroup-root",
            cgroupRoot.path(),
            "--kube-reserved=cpu=500m,memory=2Gi",
            "--system-reserved=memory=1Gi,ephemeral-storage=1Gi",
            "--eviction-hard=memory.available<300Mi,nodefs.available<1%"));

    JsonNode status = n.nodeJson().get("status");
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
    // A static BestEffort pod, the largest user, is ranked first and never evicted.
    Files.writeString(
        n.manifests().resolve("static.yaml"),
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
    n.startWithKubepodsOf(
        1536,
        "--eviction-hard=memory.available<500Mi",
        "--eviction-pressure-transition-period=30s");
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
    assertThat(n.condition("MemoryPressure")).isEqualTo("False KubeletHasSufficientMemory");

    // The BestEffort hog: 400 MiB more leaves kubepods below 500 MiB available.
    Kubectl.apply(ns, Kubectl.boundPod("hog", node, container("hog", hold(400), "{}")));

    JsonNode hog = n.failed("hog", 90);
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
              assertThat(n.condition("MemoryPressure"))
                  .isEqualTo("True KubeletHasInsufficientMemory");
              assertThat(Kubectl.events("default", node))
                  .extracting(e -> e.get("reason").asText())
                  .contains("EvictionThresholdMet", "NodeHasInsufficientMemory");
            });

    // Under MemoryPressure a new BestEffort pod is refused, as upstream.
    Kubectl.apply(ns, Kubectl.boundPod("late", node, container("app", "sleep 3600", "{}")));
    JsonNode late = n.failed("late", 30);
    assertThat(late.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(late.at("/status/message").asText())
        .isEqualTo("Pod The node had condition: [MemoryPressure]. ");

    // The Guaranteed, Burstable and static pods run on, never restarted; the pressure clears.
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(n.condition("MemoryPressure"))
                    .isEqualTo("False KubeletHasSufficientMemory"));
    for (String name : List.of("guaranteed", "burstable")) {
      JsonNode p = n.pod(name);
      assertThat(p.at("/status/phase").asText()).as(name).isEqualTo("Running");
      assertThat(p.at("/status/containerStatuses/0/restartCount").asInt()).as(name).isZero();
    }
    JsonNode mirror =
        PressureNode.JSON.readTree(
            Kubectl.run("-n", "default", "get", "pod", "static-hog-" + node, "-o", "json")
                .ok()
                .out());
    assertThat(mirror.at("/status/phase").asText()).isEqualTo("Running");
    assertThat(mirror.at("/status/containerStatuses/0/restartCount").asInt()).isZero();
    assertThat(n.jkubelet().log()).contains("cannot evict a critical pod");
    String metrics = n.jkubelet().get("/metrics").body();
    assertThat(metrics)
        .contains("kubelet_evictions{eviction_signal=\"allocatableMemory.available\"} 1");
    assertThat(metrics).contains("kubelet_eviction_stats_age_seconds_count");
  }

  @Test
  void aFullRootDirSetsDiskPressureEvictsTheWriterAndClears() throws Exception {
    n.tmpfsRootDir(96);
    n.start(
        List.of(
            "--eviction-hard=memory.available<100Mi,nodefs.available<40Mi",
            "--eviction-pressure-transition-period=5s"));
    assertThat(n.condition("DiskPressure")).isEqualTo("False KubeletHasNoDiskPressure");

    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "writer",
            node,
            "  - name: scratch\n    emptyDir: {}",
            container("app", "dd if=/dev/zero of=/scratch/fill bs=1M count=64; sleep 3600", "{}")
                + "\n    volumeMounts: [{name: scratch, mountPath: /scratch}]"));

    JsonNode writer = n.failed("writer", 90);
    assertThat(writer.at("/status/reason").asText()).isEqualTo("Evicted");
    // Its volume is on the root dir: the message names no container (its layer and logs are tiny
    // but more than its request of 0, so upstream's "Container app was using ..." may follow).
    assertThat(writer.at("/status/message").asText())
        .startsWith("The node was low on resource: ephemeral-storage. ");
    n.awaitCondition("DiskPressure", "True KubeletHasDiskPressure", 30);
    assertThat(n.jkubelet().log()).contains("attempting to reclaim ephemeral-storage");

    // The pod's deletion frees its volume: the pressure clears after the transition period.
    Kubectl.run("-n", ns, "delete", "pod", "writer", "--wait=false").ok();
    n.awaitCondition("DiskPressure", "False KubeletHasNoDiskPressure", 90);
  }

  @Test
  void aContainerFillingItsWritableLayerIsEvictedUnderImagefsPressureAndNamed() throws Exception {
    // The root dir on its own small file system: the engine's root (its images and the
    // containers' writable layers) is a dedicated image file system, as on many real nodes.
    n.tmpfsRootDir(96);
    Path engineRoot = Path.of(TestDocker.client().infoCmd().exec().getDockerRootDir());
    long free = StatFs.of(engineRoot).availableBytes();
    long thresholdMi = (free - 400 * MI) / MI; // crossed once about 400 MiB more are written
    n.start(
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
        .until(() -> n.pod("bystander").at("/status/phase").asText().equals("Running"));

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

    JsonNode writer = n.failed("layer-writer", 90);
    assertThat(writer.at("/status/reason").asText()).isEqualTo("Evicted");
    String message = writer.at("/status/message").asText();
    assertThat(message)
        .startsWith("The node was low on resource: ephemeral-storage. Container app was using ")
        .endsWith(", which exceeds its request of 0. ");
    String used = message.replaceAll(".*was using (\\S+), which.*", "$1");
    assertThat(Quantity.getAmountInBytes(new Quantity(used)).longValue())
        .as("the writable layer's usage, from " + message)
        .isGreaterThan(300 * MI);
    n.awaitCondition("DiskPressure", "True KubeletHasDiskPressure", 30);
    assertThat(n.pod("bystander").at("/status/phase").asText()).isEqualTo("Running");
    // Image GC's own line says it is off (no --image-gc flag), and it removed no image: a change
    // to its log lines fails the first check rather than passing the second unread.
    assertThat(n.jkubelet().log())
        .contains("ImageGC: imageGCHighThresholdPercent is 100; image garbage collection is off")
        .doesNotContain("ImageGC: removing image");

    // The next reclaim removes the evicted pod's dead container and its layer: the pressure clears.
    n.awaitCondition("DiskPressure", "False KubeletHasNoDiskPressure", 60);
    assertThat(n.pod("layer-writer").at("/status/phase").asText()).isEqualTo("Failed");
    assertThat(n.pod("bystander").at("/status/phase").asText()).isEqualTo("Running");
  }

  @Test
  void podsPastTheirLocalStorageLimitsAreEvictedWithoutAnyPressure() throws Exception {
    n.start(List.of("--eviction-hard=memory.available<100Mi"));
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
    JsonNode sized = n.failed("sized", 120);
    assertThat(sized.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(sized.at("/status/message").asText())
        .isEqualTo("Usage of EmptyDir volume \"scratch\" exceeds the limit \"10Mi\". ");
    JsonNode limited = n.failed("limited", 120);
    assertThat(limited.at("/status/reason").asText()).isEqualTo("Evicted");
    // Its writable layer counts: the root dir and Docker's data root share this machine's disk.
    assertThat(limited.at("/status/message").asText())
        .isEqualTo(
            "Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. ");
    assertThat(n.pod("calm").at("/status/phase").asText()).isEqualTo("Running");
    assertThat(n.condition("DiskPressure")).isEqualTo("False KubeletHasNoDiskPressure");
    String events = Kubectl.run("-n", ns, "get", "events", "-o", "json").ok().out();
    assertThat(events).contains("Usage of EmptyDir volume", "\"reason\": \"Evicted\"");
    assertThat(n.jkubelet().get("/metrics").body())
        .contains("kubelet_evictions{eviction_signal=\"emptydirfs.limit\"} 1")
        .contains("kubelet_evictions{eviction_signal=\"ephemeralpodfs.limit\"} 1");
  }
}
