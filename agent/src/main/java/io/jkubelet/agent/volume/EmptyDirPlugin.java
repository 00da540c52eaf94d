package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code emptyDir} volumes, as upstream's {@code kubernetes.io/empty-dir}: a directory of mode 0777
 * on the root dir's disk, or with {@code medium: Memory} a tmpfs of {@code sizeLimit} (the kernel's
 * default without one). The pod's {@code fsGroup} is applied when the volume is made, under its
 * {@code fsGroupChangePolicy}.
 */
final class EmptyDirPlugin implements VolumePlugin {
  private final Mounter mounter;

  EmptyDirPlugin(Mounter mounter) {
    this.mounter = mounter;
  }

  @Override
  public String dirName() {
    return "kubernetes.io~empty-dir";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getEmptyDir() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    EmptyDirVolumeSource s = v.getEmptyDir();
    boolean memory = "Memory".equals(s.getMedium());
    boolean fresh = !Files.isDirectory(dir);
    try {
      if (memory) {
        fresh = fresh || !mounter.isMountPoint(dir);
      }
    } catch (IOException e) {
      throw Errors.withCause(
          new MountFailure(v.getName(), "cannot read the mount table: " + e.getMessage()), e);
    }
    long size =
        memory && s.getSizeLimit() != null ? s.getSizeLimit().getNumericalAmount().longValue() : 0;
    Projector.prepare(mounter, v.getName(), dir, memory, size);
    if (!fresh) {
      return dir;
    }
    try {
      Files.setAttribute(dir, "unix:mode", 0777);
      Long fsGroup = Volumes.fsGroup(pod);
      if (fsGroup != null) {
        Ownership.apply(dir, fsGroup, false, Volumes.fsGroupChangePolicy(pod));
      }
    } catch (IOException e) {
      throw new MountFailure(v.getName(), "cannot set the mode of " + dir + ": " + e.getMessage());
    }
    return dir;
  }
}
