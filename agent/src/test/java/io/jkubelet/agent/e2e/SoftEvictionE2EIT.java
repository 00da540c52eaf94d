package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jkubelet.agent.runtime.Labels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A soft eviction threshold against the real API server and Docker, with real memory pressure:
 * {@code kubepods} under a cgroup root of the test's own gets 1.5 GiB (a {@code kubeReserved} of
 * the rest of the machine's memory), so {@code allocatableMemory.available} moves only with the
 * test's pods and the thresholds hold on any machine. Shown: the soft grace period (no eviction
 * before it, one after), the grace period an evicted pod gets ({@code min(its own, the maximum)}),
 * the minimum reclaim (a second pod evicted although it alone stays above the threshold), and the
 * pressure transition period (the condition stays True that long after the last pod is gone).
 */
@Timeout(300)
class SoftEvictionE2EIT {
  private static final long MI = 1L << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The soft threshold on {@code allocatableMemory.available}, and its minimum reclaim. */
  private static final long THRESHOLD_MI = 800;

  private static final long MIN_RECLAIM_MI = 400;

  private final String node = "soft-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "soft-" + UUID.randomUUID().toString().substring(0, 8);
  private final TestCgroupRoot cgroupRoot = new TestCgroupRoot();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-soft");
    Kubectl.createNamespace(ns);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
    cgroupRoot.close();
  }

  private JsonNode pod(String name) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", name, "-o", "json").ok().out());
  }

  private String condition(String type) throws Exception {
    JsonNode n = JSON.readTree(Kubectl.run("get", "node", node, "-o", "json").ok().out());
    for (JsonNode c : n.at("/status/conditions")) {
      if (c.get("type").asText().equals(type)) {
        return c.get("status").asText();
      }
    }
    return "none";
  }

  private static long memTotalBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no MemTotal");
  }

  /**
   * A BestEffort pod with its own grace period whose one container holds {@code mib} and, on
   * SIGTERM, logs the second it came and keeps running, so only the SIGKILL at the end of its grace
   * period stops it.
   */
  private static String hog(String name, String node, long mib, int ownGrace) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: %d
          containers:
          - name: hog
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'trap ''echo TERM $(date +%%s)'' TERM; dd if=/dev/zero bs=%dM count=1 2>/dev/null | sleep 3600 & while true; do wait; done']
        """
        .formatted(name, node, ownGrace, mib);
  }

  /** The pod's container on the engine, found by its labels. */
  private String containerId(String pod) throws Exception {
    String out =
        docker(
            "ps",
            "-aq",
            "--filter",
            "label=" + Labels.POD_NAMESPACE + "=" + ns,
            "--filter",
            "label=" + Labels.POD_NAME + "=" + pod,
            "--filter",
            "label=" + Labels.CONTAINER_NAME + "=hog");
    assertThat(out.lines().toList()).as("the container of " + pod).hasSize(1);
    return out.strip();
  }

  /** The seconds from the container's SIGTERM (its own log line) to its end (the engine's). */
  private double termToKill(String pod) throws Exception {
    String id = containerId(pod);
    String logs = docker("logs", id);
    String term = logs.lines().filter(l -> l.startsWith("TERM ")).findFirst().orElseThrow();
    long termSecond = Long.parseLong(term.substring(5).strip());
    Instant finished = Instant.parse(docker("inspect", "-f", "{{.State.FinishedAt}}", id).strip());
    return (finished.toEpochMilli() - termSecond * 1000) / 1000.0;
  }

  private static String docker(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("docker"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
    return out;
  }

  private static Instant finishedAt(String id) throws Exception {
    return Instant.parse(docker("inspect", "-f", "{{.State.FinishedAt}}", id).strip());
  }

  @Test
  void aSoftThresholdEvictsAfterItsGracePeriodWithTheSmallerGraceAndReclaimsItsMinimum()
      throws Exception {
    cgroupRoot.make();
    long reserved = memTotalBytes() - 1536 * MI; // kubepods gets 1.5 GiB
    jkubelet =
        new JkubeletProcess(
                node,
                Files.createDirectories(tmp.resolve("manifests")),
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--kubeconfig",
                    Kubectl.nodeKubeconfig(node).toString(),
                    "--node-ip",
                    "127.0.0.1",
                    "--cgroup-root",
                    cgroupRoot.path(),
                    "--kube-reserved=memory=" + reserved,
                    "--eviction-hard=memory.available<100Mi",
                    "--eviction-soft=allocatableMemory.available<" + THRESHOLD_MI + "Mi",
                    "--eviction-soft-grace-period=allocatableMemory.available=10s",
                    "--eviction-minimum-reclaim=allocatableMemory.available="
                        + MIN_RECLAIM_MI
                        + "Mi",
                    "--eviction-max-pod-grace-period=5",
                    "--eviction-pressure-transition-period=20s"))
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> Kubectl.run("get", "node", node, "--no-headers").ok().out().contains(" Ready "));

    // The small one alone: 550 MiB leaves kubepods above the threshold, but below it plus the
    // minimum reclaim.
    Kubectl.apply(ns, hog("small", node, 550, 2));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> cgroupRoot.kubepodsAvailable() < (1536 - 545) * MI);
    long aloneAvailable = cgroupRoot.kubepodsAvailable();
    assertThat(aloneAvailable)
        .as("kubepods' available with the small pod alone")
        .isBetween(THRESHOLD_MI * MI, (THRESHOLD_MI + MIN_RECLAIM_MI) * MI);

    // The big one: 700 MiB more crosses the soft threshold.
    Kubectl.apply(ns, hog("big", node, 700, 30));
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> cgroupRoot.kubepodsAvailable() < THRESHOLD_MI * MI);
    Instant crossed = Instant.now();

    // Not evicted within the soft grace period (10 s; watched for 7), though the manager reports
    // the pressure at once (the Node shows it at its next status update, within 10 s).
    await()
        .during(Duration.ofSeconds(7))
        .atMost(Duration.ofSeconds(8))
        .until(() -> !pod("big").at("/status/phase").asText().equals("Failed"));
    await()
        .atMost(Duration.ofSeconds(15))
        .ignoreExceptions()
        .until(() -> condition("MemoryPressure").equals("True"));

    // Evicted after it, the largest user first; SIGTERM then SIGKILL 5 s later: the maximum, less
    // than its own 30 s.
    JsonNode big =
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> pod("big"), p -> p.at("/status/phase").asText().equals("Failed"));
    assertThat(big.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(big.at("/status/message").asText())
        .startsWith("The node was low on resource: memory. Container hog was using ");
    String bigTerm =
        docker("logs", containerId("big"))
            .lines()
            .filter(l -> l.startsWith("TERM "))
            .findFirst()
            .orElseThrow();
    assertThat(Long.parseLong(bigTerm.substring(5).strip()))
        .as("the SIGTERM's second, against the threshold's crossing at %s", crossed)
        .isGreaterThanOrEqualTo(crossed.getEpochSecond() + 9);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(termToKill("big")).isBetween(4.5, 9.0));

    // Then the small one, for the minimum reclaim: alone it is above the threshold, not above the
    // threshold plus 400 MiB. Its own grace period, 2 s, is less than the maximum, and is what it
    // gets (upstream gives the maximum, kubernetes#64530).
    JsonNode small =
        await()
            .atMost(Duration.ofSeconds(40))
            .ignoreExceptions()
            .until(() -> pod("small"), p -> p.at("/status/phase").asText().equals("Failed"));
    assertThat(small.at("/status/reason").asText()).isEqualTo("Evicted");
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(termToKill("small")).isBetween(1.5, 4.5));
    Instant pressureGone = finishedAt(containerId("small"));

    // The condition stays True for the transition period (20 s) after the last pressure.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> condition("MemoryPressure").equals("False"));
    assertThat(Duration.between(pressureGone, Instant.now()))
        .as("MemoryPressure True after the last pod stopped")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(19));
    assertThat(jkubelet.get("/metrics").body())
        .contains("kubelet_evictions{eviction_signal=\"allocatableMemory.available\"} 2");
  }
}
