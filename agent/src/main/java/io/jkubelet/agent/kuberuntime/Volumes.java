package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.objects.PodObjects;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Sets up a pod's volumes on the host and says where each one lives: {@code emptyDir} under {@code
 * <root-dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>}, {@code hostPath} where it points,
 * checked by its {@code type}.
 */
public final class Volumes {
  private final Path rootDir;
  private final PodObjects objects;

  public Volumes(Path rootDir, PodObjects objects) {
    this.rootDir = rootDir;
    this.objects = objects;
  }

  /** A volume that cannot be set up: the {@code FailedMount} event names it. */
  public static final class MountFailure extends Exception {
    private final String volume;

    public MountFailure(String volume, String message) {
      super(message);
      this.volume = volume;
    }

    public String volume() {
      return volume;
    }
  }

  /** The pod's directory under the root dir. */
  public Path podDir(String uid) {
    return rootDir.resolve("pods").resolve(uid);
  }

  /** Prepares every volume of the pod and returns volume name → host path. */
  public Map<String, Path> setUp(Pod pod) throws MountFailure {
    Map<String, Path> paths = new HashMap<>();
    if (pod.getSpec().getVolumes() == null) {
      return paths;
    }
    for (Volume v : pod.getSpec().getVolumes()) {
      paths.put(v.getName(), setUp(pod, v));
    }
    return paths;
  }

  private Path setUp(Pod pod, Volume v) throws MountFailure {
    if (v.getEmptyDir() != null) {
      Path dir =
          podDir(pod.getMetadata().getUid())
              .resolve("volumes")
              .resolve("kubernetes.io~empty-dir")
              .resolve(v.getName());
      try {
        Files.createDirectories(dir);
        return dir;
      } catch (IOException e) {
        throw new MountFailure(v.getName(), "cannot create " + dir + ": " + e.getMessage());
      }
    }
    if (v.getHostPath() != null) {
      Path p = Path.of(v.getHostPath().getPath());
      String type = v.getHostPath().getType() == null ? "" : v.getHostPath().getType();
      try {
        switch (type) {
          case "", "Directory", "File", "Socket", "CharDevice", "BlockDevice" -> check(p, type);
          case "DirectoryOrCreate" -> Files.createDirectories(p);
          case "FileOrCreate" -> {
            if (!Files.exists(p)) {
              Files.createDirectories(p.toAbsolutePath().getParent());
              Files.createFile(p);
            }
          }
          default ->
              throw new MountFailure(v.getName(), "unsupported hostPath type \"" + type + "\"");
        }
      } catch (IOException e) {
        throw new MountFailure(v.getName(), "cannot prepare hostPath " + p + ": " + e.getMessage());
      }
      return p;
    }
    throw new MountFailure(
        v.getName(), "volume type is not supported by jkubelet (only emptyDir and hostPath are)");
  }

  private static void check(Path p, String type) throws MountFailure {
    switch (type) {
      case "Directory" -> {
        if (!Files.isDirectory(p)) {
          throw new MountFailure("", "hostPath type check failed: " + p + " is not a directory");
        }
      }
      case "File" -> {
        if (!Files.isRegularFile(p)) {
          throw new MountFailure("", "hostPath type check failed: " + p + " is not a file");
        }
      }
      case "Socket", "CharDevice", "BlockDevice" -> {
        if (!Files.exists(p)) {
          throw new MountFailure("", "hostPath type check failed: " + p + " does not exist");
        }
      }
      default -> {
        // "": no checks, as upstream
      }
    }
  }

  /** Removes the pod's directory; for pods that are gone. */
  public void cleanUp(String uid) throws IOException {
    Path dir = podDir(uid);
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
