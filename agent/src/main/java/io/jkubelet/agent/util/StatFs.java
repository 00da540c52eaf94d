package io.jkubelet.agent.util;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The size and free space of the file system that holds a path, as {@code statvfs(3)} gives them:
 * the one way jkubelet reads a file system (node capacity, stats, eviction signals, image GC).
 *
 * <p>NOTE: the JDK's {@link Files#getFileStore} reads the whole of {@code /proc/self/mounts} to
 * find the mount on every call, a few milliseconds each on a node with hundreds of mounts (every
 * pod's volumes are mounts), and {@code /stats/summary} asks for two file systems per pod. So this
 * calls the C library's {@code statvfs} directly ({@link LibC}, one system call), and falls back to
 * the JDK only where the C library cannot be called.
 *
 * @param capacityBytes the file system's size ({@code f_blocks × f_frsize})
 * @param freeBytes the free space, including what only root may use ({@code f_bfree})
 * @param availableBytes the space an unprivileged user may still use ({@code f_bavail}), what
 *     upstream's signals and image GC count as available
 * @param inodes the inodes ({@code f_files}); 0 when unknown
 * @param inodesFree the free inodes ({@code f_ffree}); 0 when unknown
 */
public record StatFs(
    long capacityBytes, long freeBytes, long availableBytes, long inodes, long inodesFree) {

  /**
   * Of the file system holding {@code path}.
   *
   * @throws IOException when {@code path} does not exist or its file system cannot be read
   */
  public static StatFs of(Path path) throws IOException {
    long[] v = statvfs(path);
    if (v != null) {
      long frsize = v[1] > 0 ? v[1] : v[0];
      return new StatFs(v[2] * frsize, v[3] * frsize, v[4] * frsize, v[5], v[6]);
    }
    FileStore store = Files.getFileStore(path);
    return new StatFs(
        store.getTotalSpace(), store.getUnallocatedSpace(), store.getUsableSpace(), 0, 0);
  }

  /**
   * Of the file system holding {@code path} or, when it does not exist yet, its nearest existing
   * parent.
   *
   * @throws IOException when no parent exists or the file system cannot be read
   */
  public static StatFs ofExisting(Path path) throws IOException {
    return of(existing(path));
  }

  /**
   * Whether two paths (or their nearest existing parents) are on one file system: the same device,
   * as upstream compares the root dir's and the image file system's.
   *
   * @throws IOException when either cannot be read
   */
  public static boolean sameFileSystem(Path a, Path b) throws IOException {
    return Files.getAttribute(existing(a), "unix:dev")
        .equals(Files.getAttribute(existing(b), "unix:dev"));
  }

  private static Path existing(Path path) throws IOException {
    Path p = path.toAbsolutePath();
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IOException("no existing directory holds " + path);
    }
    return p;
  }

  /** {@code statvfs(3)} through {@link LibC}; null when it cannot be called or fails. */
  private static long[] statvfs(Path path) {
    try {
      return LibC.statvfs(path.toAbsolutePath().toString());
    } catch (IOException e) {
      return null;
    }
  }
}
