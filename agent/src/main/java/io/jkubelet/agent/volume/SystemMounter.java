package io.jkubelet.agent.volume;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Mounts through the host's {@code mount} and {@code umount} programs, as upstream's {@code
 * mount.New("")} does, and reads the mount table from {@code /proc/self/mountinfo}. Thread-safe: it
 * keeps no state.
 */
final class SystemMounter implements Mounter {
  private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
  private static final long TIMEOUT_SECONDS = 30;

  @Override
  public void mountTmpfs(Path dir, long sizeBytes) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("mount", "-t", "tmpfs"));
    if (sizeBytes > 0) {
      cmd.addAll(List.of("-o", "size=" + sizeBytes));
    }
    cmd.addAll(List.of("tmpfs", dir.toString()));
    run(cmd);
  }

  @Override
  public void unmount(Path dir) throws IOException {
    run(List.of("umount", dir.toString()));
  }

  @Override
  public void makeRShared(Path dir) throws IOException {
    if (isShared(dir)) {
      return;
    }
    run(List.of("mount", "--rbind", dir.toString(), dir.toString()));
    run(List.of("mount", "--make-rshared", dir.toString()));
  }

  @Override
  public boolean isShared(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    Path best = null;
    boolean shared = false;
    for (String line : Files.readAllLines(MOUNTINFO, StandardCharsets.UTF_8)) {
      // id parent major:minor root mount-point options [optional fields...] - fstype source ...
      String[] f = line.split(" ");
      if (f.length < 7) {
        continue;
      }
      Path point = Path.of(unescape(f[4]));
      if (abs.startsWith(point) && (best == null || point.getNameCount() >= best.getNameCount())) {
        best = point;
        shared = false;
        for (int i = 6; i < f.length && !f[i].equals("-"); i++) {
          shared |= f[i].startsWith("shared:");
        }
      }
    }
    return shared;
  }

  /**
   * A directory on another device than its parent is a mount point, as upstream's {@code
   * IsLikelyNotMountPoint} decides, without reading the mount table (a sync of every pod asks this
   * for each of its tmpfs volumes). Only on the same device, which a bind mount of the same file
   * system also is, does the mount table decide.
   */
  @Override
  public boolean isMountPoint(Path dir) throws IOException {
    Path parent = dir.toAbsolutePath().normalize().getParent();
    try {
      if (parent != null
          && !Files.getAttribute(dir, "unix:dev", LinkOption.NOFOLLOW_LINKS)
              .equals(Files.getAttribute(parent, "unix:dev", LinkOption.NOFOLLOW_LINKS))) {
        return true;
      }
    } catch (IOException | UnsupportedOperationException e) {
      // not there, or no unix attributes: the mount table says
    }
    String abs = dir.toAbsolutePath().normalize().toString();
    return mountPoints().stream().anyMatch(abs::equals);
  }

  @Override
  public List<Path> mountsUnder(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    return mountPoints().stream()
        .map(Path::of)
        .filter(p -> p.startsWith(abs))
        .distinct()
        .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
        .toList();
  }

  private static List<String> mountPoints() throws IOException {
    List<String> points = new ArrayList<>();
    for (String line : Files.readAllLines(MOUNTINFO, StandardCharsets.UTF_8)) {
      String[] f = line.split(" ");
      if (f.length > 4) {
        points.add(unescape(f[4]));
      }
    }
    return points;
  }

  /** mountinfo writes space, tab, newline and backslash as {@code \ooo}. */
  static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length()) {
        String oct = s.substring(i + 1, i + 4);
        if (oct.matches("[0-7]{3}")) {
          b.append((char) Integer.parseInt(oct, 8));
          i += 3;
          continue;
        }
      }
      b.append(c);
    }
    return b.toString();
  }

  private static void run(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + ": timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + ": interrupted", e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd) + " failed with exit status " + p.exitValue() + ": " + out);
    }
  }
}
