package io.jkubelet.agent.certificates;

/**
 * A certificate file of the store in {@code --cert-dir}, or a PEM file of a certificate and key,
 * could not be read, written or swapped; the message names the file.
 */
public final class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }
}
