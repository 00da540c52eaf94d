package io.jkubelet.agent.volume;

import io.jkubelet.agent.util.Failure;

/**
 * A volume that cannot be set up. The {@code FailedMount} event reads {@code MountVolume.SetUp
 * failed for volume "<volume>" : <message>}, as upstream.
 */
public final class MountFailure extends Failure {

  public MountFailure(String volume, String message) {
    super(volume, message);
  }

  /** The volume's name in the pod spec. */
  public String volume() {
    return detail();
  }

  /** The event message, upstream's. */
  public String eventMessage() {
    return "MountVolume.SetUp failed for volume \"" + volume() + "\" : " + getMessage();
  }
}
