package io.jkubelet.agent.stats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a Docker container's writable layer is on disk, found as cAdvisor finds it for upstream's
 * container {@code rootfs} stats: {@code <engine root>/image/<driver>/layerdb/mounts/<container
 * id>/mount-id} names the layer, kept in {@code <engine root>/overlay2/<mount id>/diff} (overlay2
 * and overlay), {@code aufs/diff/<mount id>} or {@code vfs/dir/<mount id>}. Found once per
 * container (a layer never moves) and without a call to the engine; another storage driver, or a
 * container not (or no longer) there, has none.
 *
 * <p>Thread-safe: the cache is a concurrent map.
 */
final class WritableLayers {
  private static final Logger log = LoggerFactory.getLogger(WritableLayers.class);

  private final java.util.function.Supplier<Path> engineRoot;
  private final Map<String, Path> found = new ConcurrentHashMap<>();

  /**
   * @param engineRoot the engine's root directory ({@code DockerRootDir}); answers null while it is
   *     not known, or for none
   */
  WritableLayers(java.util.function.Supplier<Path> engineRoot) {
    this.engineRoot = engineRoot;
  }

  /** The directory holding what the container wrote, or empty. */
  Optional<Path> of(String containerId) {
    Path root = engineRoot.get();
    if (root == null) {
      return Optional.empty();
    }
    Path known = found.get(containerId);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<Path> dir = find(root, containerId);
    dir.ifPresent(d -> found.put(containerId, d));
    return dir;
  }

  /** Forgets every container but the {@code live} ones. */
  void retain(Set<String> live) {
    found.keySet().retainAll(live);
  }

  private Optional<Path> find(Path engineRoot, String containerId) {
    try (DirectoryStream<Path> drivers = Files.newDirectoryStream(engineRoot.resolve("image"))) {
      for (Path driver : drivers) {
        Path mountId = driver.resolve("layerdb/mounts").resolve(containerId).resolve("mount-id");
        if (Files.isRegularFile(mountId)) {
          String id = Files.readString(mountId, StandardCharsets.US_ASCII).trim();
          return layer(engineRoot, driver.getFileName().toString(), id).filter(Files::isDirectory);
        }
      }
    } catch (IOException | RuntimeException e) {
      log.debug("stats: no writable layer for container {}: {}", containerId, e.toString());
    }
    return Optional.empty();
  }

  private static Optional<Path> layer(Path engineRoot, String driver, String mountId) {
    if (mountId.isEmpty() || mountId.contains("/") || mountId.startsWith(".")) {
      return Optional.empty();
    }
    return switch (driver) {
      case "overlay2", "overlay" ->
          Optional.of(engineRoot.resolve(driver).resolve(mountId).resolve("diff"));
      case "aufs" -> Optional.of(engineRoot.resolve("aufs/diff").resolve(mountId));
      case "vfs" -> Optional.of(engineRoot.resolve("vfs/dir").resolve(mountId));
      default -> Optional.empty();
    };
  }
}
