package io.jkubelet.agent.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Unmounts what a stopped jkubelet left mounted under a test's root dir: the tmpfs of its pods'
 * secret and projected volumes (a stopped jkubelet leaves its pods, and their mounts, in place).
 */
final class TestMounts {
  private TestMounts() {}

  static void unmountUnder(Path dir) throws IOException, InterruptedException {
    if (dir == null) {
      return;
    }
    String abs = dir.toAbsolutePath().normalize().toString();
    // Rounds: unmounting the root dir's bind onto itself (made when a pod asked for mount
    // propagation) uncovers the mounts it hid.
    for (int round = 0; round < 5; round++) {
      List<String> points =
          Files.readAllLines(Path.of("/proc/self/mounts")).stream()
              .map(l -> l.split(" ")[1])
              .filter(p -> p.startsWith(abs + "/"))
              .distinct()
              .sorted(Comparator.comparingInt(String::length).reversed())
              .toList();
      if (points.isEmpty()) {
        return;
      }
      for (String p : points) {
        Process u = new ProcessBuilder("umount", p).redirectErrorStream(true).start();
        if (!u.waitFor(10, TimeUnit.SECONDS)) {
          u.destroyForcibly();
        }
      }
    }
  }
}
