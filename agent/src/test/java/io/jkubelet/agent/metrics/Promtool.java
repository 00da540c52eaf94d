package io.jkubelet.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code promtool check metrics} (Debian's {@code prometheus} package, which {@code
 * deploy/scripts/test.sh} installs) on scraped text and asserts that it finds no problem.
 */
public final class Promtool {
  private Promtool() {}

  public static void check(byte[] text) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    } catch (IOException e) {
      fail("promtool is not installed (deploy/scripts/test.sh installs Debian's prometheus): " + e);
      return;
    }
    try (var in = p.getOutputStream()) {
      in.write(text);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check metrics: %s", out).isZero();
    assertThat(out).as("promtool's findings").isBlank();
  }
}
