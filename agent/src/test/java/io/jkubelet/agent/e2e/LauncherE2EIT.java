package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged launcher's class-data archives: one per use, written by a daemon that has started
 * (jvm.ClassDataArchive) and mapped by the next run; none for a short command or a run that ends at
 * once. Runs a copy of the distribution (the launcher, links to the jars) so that the archives it
 * writes are this test's own.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LauncherE2EIT {
  @TempDir Path dist;

  @BeforeEach
  void copyOfTheDistribution() throws IOException {
    Path real = Path.of(System.getProperty("jkubelet.dist", "target/jkubelet")).toAbsolutePath();
    Files.createDirectories(dist.resolve("bin"));
    Files.copy(real.resolve("bin/jkubelet"), dist.resolve("bin/jkubelet"));
    Files.createDirectories(dist.resolve("lib"));
    try (Stream<Path> jars = Files.list(real.resolve("lib"))) {
      for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
        Files.createSymbolicLink(dist.resolve("lib").resolve(jar.getFileName()), jar);
      }
    }
  }

  /** Runs the launcher with ARGS and returns its exit code. */
  private int launch(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(dist.resolve("bin/jkubelet").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(dist.resolve("out.log").toFile());
    pb.environment().remove("JKUBELET_CDS_ARCHIVE");
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the launcher exits").isTrue();
    return p.exitValue();
  }

  private List<String> archives() throws IOException {
    try (Stream<Path> files = Files.list(dist.resolve("lib"))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".jsa"))
          .sorted()
          .toList();
    }
  }

  @Test
  void aRunThatEndsAtOnceWritesNoArchiveAndNorDoesAShortCommand() throws Exception {
    Files.writeString(dist.resolve("lib/jkubelet.jsa"), "an earlier release's one archive");
    assertThat(launch("--help")).isZero();
    assertThat(archives()).as("after --help, the earlier release's archive removed").isEmpty();

    // Each exits at once with a configuration error, as a kubelet.service started before kubeadm
    // gave it one does every 10 s: an archive of such a run would be kept by every later one.
    assertThat(launch("run", "--kubeconfig", dist.resolve("missing").toString())).isEqualTo(2);
    assertThat(launch("run", "--max-pods", "lots")).isEqualTo(2);
    assertThat(archives()).isEmpty();
  }

  @Test
  void aDaemonWritesItsArchiveOnceStartedAndTheNextRunMapsIt(@TempDir Path work) throws Exception {
    Path manifests = Files.createDirectories(work.resolve("manifests"));
    Path archive = dist.resolve("lib/jkubelet-run-standalone.jsa");
    try (JkubeletProcess first = daemon(manifests, work.resolve("root"), work.resolve("1.log"))) {
      first.start().awaitHealthy();
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> assertThat(archives()).containsExactly(archive.getFileName().toString()));
      assertThat(first.log()).contains("Class-data archive " + archive + " written");
      first.stop();
    }
    try (JkubeletProcess second = daemon(manifests, work.resolve("root"), work.resolve("2.log"))) {
      second.start().awaitHealthy();
      assertThat(Files.readString(Path.of("/proc", Long.toString(second.pid()), "maps")))
          .as("the second run maps the first one's archive")
          .contains(archive.toString());
      second.stop();
      assertThat(second.log()).doesNotContain("Class-data archive");
    }
    assertThat(archives()).containsExactly(archive.getFileName().toString());
  }

  /** A standalone daemon of this copy, which writes its archive 3 s after it started. */
  private JkubeletProcess daemon(Path manifests, Path root, Path log) throws IOException {
    return new JkubeletProcess("launcher-cds", manifests, root, log)
        .launcher(dist.resolve("bin/jkubelet"))
        .environment("JKUBELET_CDS_ARCHIVE", null)
        .environment("JKUBELET_JAVA_OPTS", "-Djkubelet.cds.archive.after=PT3S");
  }
}
