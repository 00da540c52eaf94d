package io.jkubelet.agent.volume;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Mounter} that records tmpfs mounts without mounting anything, for unit tests; {@link
 * #refuse} makes mounts fail as an unprivileged process's would.
 */
public final class FakeMounter implements Mounter {
  /** Mount point → size. */
  public final Map<Path, Long> mounts = new ConcurrentHashMap<>();

  /** Directories made rshared. */
  public final java.util.Set<Path> shared = ConcurrentHashMap.newKeySet();

  public volatile String refuse;

  @Override
  public void mountTmpfs(Path dir, long sizeBytes) throws IOException {
    if (refuse != null) {
      throw new IOException(refuse);
    }
    mounts.put(dir.toAbsolutePath().normalize(), sizeBytes);
  }

  @Override
  public void unmount(Path dir) {
    mounts.remove(dir.toAbsolutePath().normalize());
  }

  @Override
  public void makeRShared(Path dir) throws IOException {
    if (refuse != null) {
      throw new IOException(refuse);
    }
    Path abs = dir.toAbsolutePath().normalize();
    if (!isShared(abs)) {
      mounts.put(abs, -1L); // a bind of itself: a mount point with no size of its own
      shared.add(abs);
    }
  }

  @Override
  public boolean isShared(Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    return shared.stream().anyMatch(s -> abs.startsWith(s) && mounts.containsKey(s));
  }

  @Override
  public boolean isMountPoint(Path dir) {
    return mounts.containsKey(dir.toAbsolutePath().normalize());
  }

  @Override
  public List<Path> mountsUnder(Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    return mounts.keySet().stream()
        .filter(p -> p.startsWith(abs))
        .sorted(Comparator.comparingInt(Path::getNameCount).reversed())
        .toList();
  }
}
