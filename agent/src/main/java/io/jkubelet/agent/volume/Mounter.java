package io.jkubelet.agent.volume;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The host's mount table, as upstream's {@code mount.Interface}: tmpfs mounts for memory-backed
 * volumes and their unmounts. {@link #system()} runs the host's {@code mount}, as upstream does;
 * tests pass a fake.
 */
public interface Mounter {

  /**
   * Mounts a fresh tmpfs on the directory, which must exist.
   *
   * @param sizeBytes the tmpfs size, or 0 for the kernel's default (half the memory)
   * @throws IOException when it cannot, e.g. not permitted; the message says why
   */
  void mountTmpfs(Path dir, long sizeBytes) throws IOException;

  /** Unmounts what is mounted on the directory. */
  void unmount(Path dir) throws IOException;

  /** Whether something is mounted on exactly this directory. */
  boolean isMountPoint(Path dir) throws IOException;

  /** The mount points at or below {@code dir}, deepest first. */
  List<Path> mountsUnder(Path dir) throws IOException;

  /**
   * Makes {@code dir} propagate mounts both ways, as upstream's {@code MakeRShared} does for the
   * root dir: unless it already lies on a shared mount, it is bind-mounted onto itself (with the
   * mounts below it) and made rshared. The engine refuses {@code rslave} and {@code rshared} binds
   * of a source that is on a private mount.
   *
   * @throws IOException when it cannot, e.g. not permitted; the message says why
   */
  void makeRShared(Path dir) throws IOException;

  /** Whether {@code dir} lies on a shared mount (its own or the one it is under). */
  boolean isShared(Path dir) throws IOException;

  /** The host's mounter: {@code mount}/{@code umount}, and {@code /proc/self/mountinfo}. */
  static Mounter system() {
    return new SystemMounter();
  }
}
