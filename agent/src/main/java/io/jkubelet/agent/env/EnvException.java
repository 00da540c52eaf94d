package io.jkubelet.agent.env;

/**
 * A container's environment cannot be made: a missing required ConfigMap, Secret or key, or a
 * source that cannot be read. The message is upstream's, and becomes the container's {@code
 * CreateContainerConfigError}.
 */
public final class EnvException extends Exception {
  public EnvException(String message) {
    super(message);
  }
}
