package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.nio.file.Path;

/** One kind of volume, as upstream's {@code volume.VolumePlugin}. */
interface VolumePlugin {

  /** The plugin's directory under {@code volumes/}, e.g. {@code kubernetes.io~secret}. */
  String dirName();

  boolean canSupport(Volume v);

  /**
   * Sets the volume up (again: idempotent) and returns the host path to bind.
   *
   * @param dir {@code <pod dir>/volumes/<dirName>/<volume name>}
   */
  Path setUp(Pod pod, Volume v, Path dir) throws MountFailure;
}
