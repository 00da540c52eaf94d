package io.jkubelet.agent.credentials;

/** A Docker config (a file or a pull secret's payload) that cannot be read as one. */
public final class InvalidDockerConfig extends Exception {
  private InvalidDockerConfig(String message, Throwable cause) {
    super(message, cause);
  }

  public static InvalidDockerConfig of(String message) {
    return new InvalidDockerConfig(message, null);
  }

  public static InvalidDockerConfig causedBy(String message, Throwable cause) {
    return new InvalidDockerConfig(message, cause);
  }
}
