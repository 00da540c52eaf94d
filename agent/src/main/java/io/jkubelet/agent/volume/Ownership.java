package io.jkubelet.agent.volume;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code fsGroup} ownership of a volume, as upstream's {@code SetVolumeOwnership}: every file and
 * directory gets the group (links themselves, never their targets), group read (and write, unless
 * the volume is read-only) on top of its mode, and directories group search and setgid, so that new
 * files inherit the group. With {@code fsGroupChangePolicy: OnRootMismatch}, a volume whose root
 * already has the group and those bits is left alone.
 */
final class Ownership {
  private static final int RW = 0660;
  private static final int RO = 0440;
  private static final int EXEC = 0110;
  private static final int SETGID = 02000;
  static final String ON_ROOT_MISMATCH = "OnRootMismatch";

  private Ownership() {}

  /**
   * Applies the group to the volume's tree.
   *
   * @param policy the pod's {@code fsGroupChangePolicy}, or null (Always)
   */
  static void apply(Path root, long fsGroup, boolean readOnly, String policy) throws IOException {
    if (ON_ROOT_MISMATCH.equals(policy) && !requiresChange(root, fsGroup, readOnly)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> walk = Files.walk(root)) {
      all = walk.toList();
    }
    int mask = readOnly ? RO : RW;
    for (Path p : all) {
      Files.setAttribute(p, "unix:gid", (int) fsGroup, LinkOption.NOFOLLOW_LINKS);
      if (Files.isSymbolicLink(p)) {
        continue; // a chmod would go to the target and undo its mode
      }
      int mode = (int) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
      int add = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? mask | EXEC | SETGID : mask;
      Files.setAttribute(p, "unix:mode", mode | add, LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** upstream's {@code requiresPermissionChange}. */
  static boolean requiresChange(Path root, long fsGroup, boolean readOnly) throws IOException {
    if ((int) Files.getAttribute(root, "unix:gid") != fsGroup || !Files.isDirectory(root)) {
      return true;
    }
    int want = (readOnly ? RO : RW) | EXEC;
    int mode = (int) Files.getAttribute(root, "unix:mode");
    return (mode & want) != want || (mode & SETGID) == 0;
  }
}
