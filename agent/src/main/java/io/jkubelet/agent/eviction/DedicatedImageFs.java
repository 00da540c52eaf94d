package io.jkubelet.agent.eviction;

import io.jkubelet.agent.util.StatFs;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the engine keeps images and layers on another file system than the root dir's (upstream's
 * {@code HasDedicatedImageFs}); false while the engine's root is unknown or unreadable. Asked at
 * each iteration that needs it.
 */
public final class DedicatedImageFs implements BooleanSupplier {
  private static final Logger log = LoggerFactory.getLogger(DedicatedImageFs.class);

  private final Path rootDir;
  private final Supplier<Path> engineRoot;

  /**
   * @param engineRoot the engine's root directory, null while unknown
   */
  public DedicatedImageFs(Path rootDir, Supplier<Path> engineRoot) {
    this.rootDir = rootDir;
    this.engineRoot = engineRoot;
  }

  @Override
  public boolean getAsBoolean() {
    return dedicated(rootDir, engineRoot.get());
  }

  static boolean dedicated(Path rootDir, Path engineRoot) {
    if (engineRoot == null) {
      return false;
    }
    try {
      return !StatFs.sameFileSystem(rootDir, engineRoot);
    } catch (java.io.IOException | RuntimeException e) {
      log.warn(
          "Eviction manager: cannot compare the file systems of {} and {}: {}",
          rootDir,
          engineRoot,
          e.toString());
      return false;
    }
  }
}
