package io.jkubelet.agent.credentials;

/** A Docker config (a file or a pull secret's payload) that cannot be read as one. */
public final class InvalidDockerConfig extends Exception {
  public InvalidDockerConfig(String message) {
    super(message);
  }
}
