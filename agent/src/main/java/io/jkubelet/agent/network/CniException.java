package io.jkubelet.agent.network;

/**
 * A CNI operation failed: a plugin that is missing, refused, timed out, or answered with an error.
 * The message is what an operator needs: the plugin's own message when it gave one.
 */
final class CniException extends Exception {
  CniException(String message) {
    super(message);
  }
}
