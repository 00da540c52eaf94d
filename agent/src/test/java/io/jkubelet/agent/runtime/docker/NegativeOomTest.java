package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a negative {@code oom_score_adj} becomes, from the probe's answer and from starts. */
class NegativeOomTest {
  private final AtomicInteger probes = new AtomicInteger();

  private NegativeOom with(Optional<Boolean> answer) {
    return new NegativeOom(
        () -> {
          probes.incrementAndGet();
          return answer;
        });
  }

  @Test
  void aHostThatRefusesGetsZeroAndIsAskedOnce() {
    NegativeOom oom = with(Optional.of(false));
    assertThat(oom.effective(875)).isEqualTo(875);
    assertThat(probes).hasValue(0); // a value that is not negative asks nothing
    assertThat(oom.effective(-997)).isZero();
    assertThat(oom.effective(-998)).isZero();
    assertThat(probes).hasValue(1);
  }

  @Test
  void aHostThatAllowsKeepsTheValue() {
    NegativeOom oom = with(Optional.of(true));
    assertThat(oom.effective(-997)).isEqualTo(-997);
    assertThat(oom.refused()).isFalse();
  }

  @Test
  void whenTheProbeCannotTellTheFirstStartTells() {
    NegativeOom oom = with(Optional.empty());
    assertThat(oom.effective(-997)).isEqualTo(-997);
    oom.created("c1", -997);

    assertThat(oom.failed("c1", -997)).as("the first refusal").isTrue();

    assertThat(oom.effective(-997)).isZero();
    assertThat(probes).hasValue(1);
  }

  @Test
  void aStartWithANegativeValueMeansTheHostAllowsIt() {
    NegativeOom oom = with(Optional.empty());
    oom.created("c1", -997);
    oom.started("c1");
    assertThat(oom.failed("c2", -997)).as("c2 was not created unknowing").isFalse();
    assertThat(oom.effective(-997)).isEqualTo(-997);
  }

  @Test
  void theProbeOfThisProcessAnswersAsAShellChildWouldAndLeavesItsScore() throws Exception {
    Path own = Path.of("/proc/self/oom_score_adj");
    assumeTrue(Files.isWritable(own), "no /proc/self/oom_score_adj here");
    String before = Files.readString(own);
    Process sh =
        new ProcessBuilder("sh", "-c", "echo -1 > /proc/self/oom_score_adj")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(NegativeOom.localProbe("unix:///var/run/docker.sock").get())
        .contains(sh.exitValue() == 0);
    assertThat(Files.readString(own)).isEqualTo(before);
    assertThat(NegativeOom.localProbe("tcp://engine:2375").get()).isEmpty();
  }

  @Test
  void aScoreFileThatCannotBeReadCannotTell(@TempDir Path dir) {
    assertThat(NegativeOom.probeOwnScore(dir.resolve("none"))).isEmpty();
  }
}
