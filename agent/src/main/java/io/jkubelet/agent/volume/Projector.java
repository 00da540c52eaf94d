package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What secret, configMap, downward API and projected volumes share: the payload is computed first
 * (so a missing object creates nothing), the directory is made (a tmpfs where upstream wraps a
 * memory emptyDir, never falling back to disk), the files are written by the {@link AtomicWriter},
 * and the pod's {@code fsGroup} is applied when they changed.
 *
 * <p>A volume that was set up before (it has a {@code ..data} link) and whose payload cannot be had
 * now keeps its last files: a {@code FailedMount} Warning says why, and the pod goes on.
 * Thread-safe: it keeps no state.
 */
record Projector(Mounter mounter, EventRecorder recorder, Clock clock) {
  private static final Logger log = LoggerFactory.getLogger(Projector.class);

  /** Computes a volume's files. */
  @FunctionalInterface
  interface Payload {
    Map<String, FileProjection> compute() throws MountFailure;
  }

  /** Sets the volume up in {@code dir}; {@code tmpfs} for memory-backed kinds. */
  Path project(Pod pod, Volume v, Path dir, boolean tmpfs, Payload payload) throws MountFailure {
    Map<String, FileProjection> files;
    try {
      files = payload.compute();
    } catch (MountFailure e) {
      if (!Files.exists(dir.resolve(AtomicWriter.DATA_DIR), LinkOption.NOFOLLOW_LINKS)) {
        throw e;
      }
      // Set up before: the last files stay, as upstream leaves a mounted volume alone.
      recorder.event(Refs.pod(pod), EventType.Warning, Reasons.FAILED_MOUNT, e.eventMessage());
      log.warn(
          "Volumes: pod {}/{} volume {} keeps its last files: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          v.getName(),
          e.getMessage());
      return dir;
    }
    prepare(v, dir, tmpfs);
    String context =
        "pod "
            + pod.getMetadata().getNamespace()
            + "/"
            + pod.getMetadata().getName()
            + " volume "
            + v.getName();
    boolean changed;
    try {
      changed = new AtomicWriter(dir, clock, context).write(files);
    } catch (AtomicWriter.InvalidPath e) {
      throw new MountFailure(v.getName(), e.getMessage());
    } catch (IOException e) {
      throw Errors.withCause(
          new MountFailure(v.getName(), "error writing payload to dir: " + e.getMessage()), e);
    }
    Long fsGroup = Volumes.fsGroup(pod);
    if (changed && fsGroup != null) {
      try {
        Ownership.apply(dir, fsGroup, true, null);
      } catch (IOException e) {
        throw Errors.withCause(
            new MountFailure(
                v.getName(), "cannot apply fsGroup " + fsGroup + ": " + e.getMessage()),
            e);
      }
    }
    return dir;
  }

  /** The directory, with a tmpfs on it when asked; never the disk instead. */
  void prepare(Volume v, Path dir, boolean tmpfs) throws MountFailure {
    prepare(mounter, v.getName(), dir, tmpfs, 0);
  }

  static void prepare(Mounter mounter, String volume, Path dir, boolean tmpfs, long size)
      throws MountFailure {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw Errors.withCause(
          new MountFailure(volume, "cannot create " + dir + ": " + e.getMessage()), e);
    }
    if (!tmpfs) {
      return;
    }
    try {
      if (!mounter.isMountPoint(dir)) {
        mounter.mountTmpfs(dir, size);
      }
    } catch (IOException e) {
      throw Errors.withCause(
          new MountFailure(
              volume,
              "cannot mount a tmpfs on "
                  + dir
                  + " (this volume is never written to disk): "
                  + e.getMessage()),
          e);
    }
  }
}
