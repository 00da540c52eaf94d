package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.config.Records;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Sets up a pod's volumes on the host, as upstream's volume manager with its plugins, and says
 * where each one lives, for the container's bind mounts. Every kind but {@code hostPath} lives
 * under {@code <root-dir>/pods/<uid>/volumes/<plugin>/<name>}, with upstream's plugin directory
 * names.
 *
 * <p>{@link #setUp} is idempotent and is called on every sync of a pod, so a change of a secret,
 * configMap or projected label reaches the files: the atomic writer only swaps when the content
 * changed. Thread-safe for different pods at once; one pod is set up by one worker at a time.
 */
public interface VolumeManager {

  /**
   * Prepares every volume of the pod. Each volume that fails gets its own {@code FailedMount}
   * Warning (upstream's message); a volume that was set up before and can no longer be refreshed
   * (its secret deleted, the API server away) keeps its files, with the Warning, and does not fail.
   *
   * @return volume name → host path
   * @throws MountFailure the first volume that cannot be set up; the pod must not start
   */
  Map<String, Path> setUp(Pod pod) throws MountFailure;

  /** The pod's directory under the root dir. */
  Path podDir(String uid);

  /**
   * Unmounts the pod's tmpfs volumes (and whatever else is mounted below its directory), forgets
   * its tokens and removes its directory. A failure is kept, as {@link #teardownFailure}, until a
   * later call succeeds.
   */
  void cleanUp(String uid) throws IOException;

  /**
   * Why the pod's volumes could not be torn down the last time {@link #cleanUp} tried; empty when
   * it has not failed (or succeeded since).
   */
  Optional<TeardownFailure> teardownFailure(String uid);

  /**
   * A volume that would not tear down.
   *
   * @param volume the volume's name, or the path below the pod's directory that failed when it is
   *     not inside a volume
   * @param error the last error, as the system said it (e.g. {@code umount}'s "target is busy")
   * @param since the first failure of this volume in a row
   */
  record TeardownFailure(String volume, String error, Instant since) {
    public TeardownFailure {
      Records.requireNonNull(TeardownFailure.class, volume, error, since);
    }
  }

  /**
   * What the volume manager is built from.
   *
   * @param rootDir the root dir ({@code --root-dir})
   * @param objects the secrets and configMaps of the node's pods
   * @param tokens the TokenRequest API
   * @param mounter the host's mount table
   * @param recorder where {@code FailedMount} Warnings go
   * @param clock for the atomic writer's directory names and token expiry
   * @param allocatable the node's allocatable, for {@code resourceFieldRef} without a limit
   */
  record Options(
      Path rootDir,
      PodObjects objects,
      TokenSource tokens,
      Mounter mounter,
      EventRecorder recorder,
      Clock clock,
      NodeAllocatable allocatable) {
    public Options {
      Records.requireNonNull(
          Options.class, rootDir, objects, tokens, mounter, recorder, clock, allocatable);
    }
  }

  /**
   * Whether the volume is always mounted read-only, whatever the mount says: secret, configMap,
   * downward API and projected volumes, as upstream's {@code mustMountRO}.
   */
  static boolean mustMountReadOnly(Volume v) {
    return v.getSecret() != null
        || v.getConfigMap() != null
        || v.getDownwardAPI() != null
        || v.getProjected() != null;
  }

  static VolumeManager create(Options options) {
    return new Volumes(options);
  }
}
