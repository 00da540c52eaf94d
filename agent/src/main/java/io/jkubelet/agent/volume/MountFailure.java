package io.jkubelet.agent.volume;

/**
 * A volume that cannot be set up. The {@code FailedMount} event reads {@code MountVolume.SetUp
 * failed for volume "<volume>" : <message>}, as upstream.
 */
public final class MountFailure extends Exception {
  private final String volume;

  private MountFailure(String volume, String message, Throwable cause) {
    super(message, cause);
    this.volume = volume;
  }

  public static MountFailure of(String volume, String message) {
    return new MountFailure(volume, message, null);
  }

  public static MountFailure causedBy(String volume, String message, Throwable cause) {
    return new MountFailure(volume, message, cause);
  }

  /** The volume's name in the pod spec. */
  public String volume() {
    return volume;
  }

  /** The event message, upstream's. */
  public String eventMessage() {
    return "MountVolume.SetUp failed for volume \"" + volume + "\" : " + getMessage();
  }
}
