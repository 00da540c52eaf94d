package io.jkubelet.agent.network;

/**
 * A CNI operation failed: a plugin that is missing, refused, timed out, or answered with an error.
 * The message is what an operator needs: the plugin's own message when it gave one.
 */
final class CniException extends Exception {
  private CniException(String message, Throwable cause) {
    super(message, cause);
  }

  static CniException of(String message) {
    return new CniException(message, null);
  }

  static CniException causedBy(String message, Throwable cause) {
    return new CniException(message, cause);
  }
}
