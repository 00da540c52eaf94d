package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code hostPath} volumes: the host path itself, checked or created by its {@code type}. */
final class HostPathPlugin implements VolumePlugin {

  @Override
  public String dirName() {
    return "kubernetes.io~host-path";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getHostPath() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path ignored) throws MountFailure {
    Path p = Path.of(v.getHostPath().getPath());
    String type = v.getHostPath().getType() == null ? "" : v.getHostPath().getType();
    try {
      switch (type) {
        case "", "Directory", "File", "Socket", "CharDevice", "BlockDevice" ->
            check(v.getName(), p, type);
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
      throw Errors.withCause(
          new MountFailure(v.getName(), "cannot prepare hostPath " + p + ": " + e.getMessage()), e);
    }
    return p;
  }

  private static void check(String volume, Path p, String type) throws MountFailure {
    switch (type) {
      case "Directory" -> {
        if (!Files.isDirectory(p)) {
          throw new MountFailure(
              volume, "hostPath type check failed: " + p + " is not a directory");
        }
      }
      case "File" -> {
        if (!Files.isRegularFile(p)) {
          throw new MountFailure(volume, "hostPath type check failed: " + p + " is not a file");
        }
      }
      case "Socket", "CharDevice", "BlockDevice" -> {
        if (!Files.exists(p)) {
          throw new MountFailure(volume, "hostPath type check failed: " + p + " does not exist");
        }
      }
      default -> {
        // "": no checks, as upstream
      }
    }
  }
}
