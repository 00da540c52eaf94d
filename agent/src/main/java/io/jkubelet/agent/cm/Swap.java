package io.jkubelet.agent.cm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's swap check ({@code --fail-swap-on}, {@code failSwapOn}), as its container manager
 * makes it before anything else ({@code NewContainerManager}): more lines in {@code /proc/swaps}
 * than its header means swap is on, which the kubelet does not support.
 */
final class Swap {
  private static final Logger log = LoggerFactory.getLogger(Swap.class);

  static final Path PROC_SWAPS = Path.of("/proc/swaps");

  private Swap() {}

  /**
   * Refuses to go on with swap on, with upstream's message; a missing file is no swap, as
   * upstream's.
   *
   * @throws SwapOnException when {@code swaps} lists a swap area
   * @throws UncheckedIOException when {@code swaps} cannot be read
   */
  static void check(Path swaps) {
    String data;
    try {
      // NOTE: by lines, as ContainerManagers.pidMax: /proc files report a size of 0.
      data = String.join("\n", Files.readAllLines(swaps)).strip();
    } catch (NoSuchFileException e) {
      log.warn("file {} does not exist, assuming that swap is disabled", swaps);
      return;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> lines = List.of(data.split("\n", -1));
    if (lines.size() > 1) {
      throw new SwapOnException(
          "running with swap on is not supported, please disable swap! or set --fail-swap-on flag"
              + " to false. /proc/swaps contained: ["
              + String.join(" ", lines)
              + "]");
    }
  }
}
