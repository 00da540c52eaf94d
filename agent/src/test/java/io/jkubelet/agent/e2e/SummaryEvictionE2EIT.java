package io.jkubelet.agent.e2e;

import static io.jkubelet.agent.e2e.PressureNode.memTotalBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /stats/summary} of a real jkubelet (standalone) reports the readings its eviction manager
 * decides on: the node's memory out of {@code MemTotal}, {@code kubepods} as the {@code pods}
 * system container out of its limit, the root dir's file system (a 64 MiB tmpfs, so only the test
 * changes it), Docker's data root and the process limit; and when the test fills the tmpfs past
 * {@code nodefs.available<24Mi}, the observation the eviction manager logs is the summary's {@code
 * node.fs}.
 */
@Timeout(240)
class SummaryEvictionE2EIT {
  private static final long MI = 1L << 20;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern RECLAIM =
      Pattern.compile(
          "attempting to reclaim ephemeral-storage \\(.*; observed nodefs\\.available=(\\d+) of"
              + " (\\d+) at (\\S+)\\)");

  private final String node = "evs-" + UUID.randomUUID().toString().substring(0, 8);
  private final TestCgroupRoot cgroupRoot = new TestCgroupRoot();
  private Path tmp;
  private Path rootDir;
  private boolean tmpfs;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    cgroupRoot.make(); // skips on cgroup v2
    tmp = Files.createTempDirectory("jkubelet-evsummary");
    rootDir = Files.createDirectories(tmp.resolve("root"));
    Process m =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", rootDir.toString())
            .inheritIO()
            .start();
    assertThat(m.waitFor()).isZero();
    tmpfs = true;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    if (tmpfs) {
      new ProcessBuilder("umount", rootDir.toString()).start().waitFor();
    }
    cgroupRoot.close();
  }

  private JsonNode summary() throws Exception {
    var r = jkubelet.get("/stats/summary");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("node");
  }

  private static long number(Path file) throws IOException {
    return Long.parseLong(Files.readAllLines(file).get(0).trim());
  }

  @Test
  void theSummaryReportsWhatTheEvictionManagerReadsAndLogs() throws Exception {
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
    List<String> flags = new ArrayList<>();
    flags.addAll(
        List.of(
            "--cgroup-root",
            cgroupRoot.path(),
            "--kube-reserved=memory=1Gi",
            "--eviction-hard=memory.available<1Mi,nodefs.available<24Mi",
            "--eviction-pressure-transition-period=2s"));
    jkubelet =
        new JkubeletProcess(node, manifests, rootDir, tmp.resolve("jkubelet.log"), flags)
            .start()
            .awaitHealthy();

    JsonNode n =
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(this::summary, s -> s.has("systemContainers") && s.has("rlimit"));

    // memory.available: out of MemTotal, freshly read (every 100 ms) by the eviction manager.
    JsonNode memory = n.get("memory");
    assertThat(memory.get("availableBytes").asLong() + memory.get("workingSetBytes").asLong())
        .isEqualTo(memTotalBytes());
    assertThat(Instant.parse(memory.get("time").asText()))
        .isBetween(Instant.now().minusSeconds(3), Instant.now().plusSeconds(1));
    // allocatableMemory.available: kubepods out of its limit (capacity less the 1 GiB reserved).
    JsonNode pods = n.get("systemContainers").get(0);
    assertThat(pods.get("name").asText()).isEqualTo("pods");
    long limit = number(cgroupRoot.kubepodsMemory().resolve("memory.limit_in_bytes"));
    assertThat(limit).isEqualTo((memTotalBytes() - (1L << 30)) / 4096 * 4096);
    assertThat(
            pods.at("/memory/availableBytes").asLong()
                + pods.at("/memory/workingSetBytes").asLong())
        .isEqualTo(limit);
    // nodefs: the 64 MiB tmpfs, with its inodes; imagefs: Docker's data root.
    JsonNode fs = n.get("fs");
    assertThat(fs.get("capacityBytes").asLong()).isEqualTo(64 * MI);
    assertThat(fs.get("inodes").asLong()).isPositive();
    assertThat(fs.get("inodesFree").asLong()).isBetween(1L, fs.get("inodes").asLong());
    String dockerRoot = TestDocker.client().infoCmd().exec().getDockerRootDir();
    assertThat(n.at("/runtime/imageFs/capacityBytes").asLong())
        .isEqualTo(Files.getFileStore(Path.of(dockerRoot)).getTotalSpace());
    assertThat(n.at("/runtime/imageFs/inodes").asLong()).isPositive();
    // pid.available: kernel.pid_max less the tasks.
    long pidMax = number(Path.of("/proc/sys/kernel/pid_max"));
    assertThat(n.at("/rlimit/maxpid").asLong()).isEqualTo(pidMax);
    assertThat(n.at("/rlimit/curproc").asLong()).isBetween(1L, pidMax - 1);
    // Nothing reclaimed yet: the manager's start line is there, no reclaim line (the wait below
    // finds one once the disk fills, so a change to its wording fails there too).
    assertThat(jkubelet.log())
        .contains("Eviction manager: memory signals every ")
        .doesNotContain("Eviction manager: attempting to reclaim");

    // 48 MiB written leaves less than 24 MiB: the manager acts on, and logs, the summary's figure.
    Path filler = rootDir.resolve("filler");
    Files.write(filler, new byte[48 * (int) MI]);
    Matcher logged =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> RECLAIM.matcher(jkubelet.log()), Matcher::find);
    long available = Long.parseLong(logged.group(1));
    long capacity = Long.parseLong(logged.group(2));
    assertThat(available).isLessThan(24 * MI);
    assertThat(capacity).isEqualTo(64 * MI);
    JsonNode after = summary();
    assertThat(after.at("/fs/availableBytes").asLong()).isEqualTo(available);
    assertThat(after.at("/fs/capacityBytes").asLong()).isEqualTo(capacity);
    assertThat(jkubelet.log()).contains("node conditions now [DiskPressure]");

    // Freed again: the summary shows it at once, and the condition clears after the transition
    // period.
    Files.delete(filler);
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> summary().at("/fs/availableBytes").asLong() > 24 * MI);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> jkubelet.log().contains("node conditions now []"));
  }
}
