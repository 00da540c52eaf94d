package io.jkubelet.agent.cm;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Upstream's swap check, on hand-made copies of {@code /proc/swaps}. */
class SwapTest {
  private static final String HEADER = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";

  @TempDir Path tmp;

  @Test
  void swapOnIsRefusedWithUpstreamsMessage() throws Exception {
    Path swaps = Files.writeString(tmp.resolve("swaps"), HEADER + "/swapfile file 4194300 0 -2\n");
    assertThatThrownBy(() -> Swap.check(swaps))
        .isInstanceOf(SwapOnException.class)
        .hasMessage(
            "running with swap on is not supported, please disable swap! or set --fail-swap-on"
                + " flag to false. /proc/swaps contained: ["
                + HEADER.strip()
                + " /swapfile file 4194300 0 -2]");
  }

  @Test
  void onlyTheHeaderOrNoFileIsNoSwap() throws Exception {
    Path swaps = Files.writeString(tmp.resolve("swaps"), HEADER);
    assertThatCode(() -> Swap.check(swaps)).doesNotThrowAnyException();
    assertThatCode(() -> Swap.check(tmp.resolve("none"))).doesNotThrowAnyException();
  }
}
