package io.jkubelet.agent.certificates;

/**
 * A certificate file of the store in {@code --cert-dir}, or a PEM file of a certificate and key,
 * could not be read, written or swapped; the message names the file.
 */
public final class StoreException extends RuntimeException {
  private StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public static StoreException of(String message) {
    return new StoreException(message, null);
  }

  public static StoreException causedBy(String message, Throwable cause) {
    return new StoreException(message, cause);
  }
}
