package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged launcher's class-data archives: one per use, written when the JVM exits, and none
 * for a short command. Runs a copy of the distribution (the launcher, links to the jars) so that
 * the archives it writes are this test's own.
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
  void oneArchivePerUseAndNoneForAShortCommand() throws Exception {
    Files.writeString(dist.resolve("lib/jkubelet.jsa"), "an earlier release's one archive");
    assertThat(launch("--help")).isZero();
    assertThat(archives()).as("after --help, the earlier release's archive removed").isEmpty();

    // Each exits at once with a configuration error; the JVM writes the archive as it exits.
    assertThat(launch("run", "--kubeconfig", dist.resolve("missing").toString())).isEqualTo(2);
    assertThat(launch("run", "--max-pods", "lots")).isEqualTo(2);
    assertThat(archives())
        .containsExactly("jkubelet-run-cluster.jsa", "jkubelet-run-standalone.jsa");
  }
}
