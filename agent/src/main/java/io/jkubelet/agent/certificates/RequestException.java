package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Failure;

/**
 * A certificate request ended without a usable certificate. The {@link Reason} says whether the
 * next attempt may wait on the same CSR (same key) or must file a new one.
 */
final class RequestException extends Failure {
  /** Why a request ended. */
  public enum Reason {
    /** The CSR was denied. */
    DENIED(true),
    /** The signer failed the CSR. */
    FAILED(true),
    /** The issued certificate is expired, not yet valid, unreadable or not for the key. */
    UNUSABLE(true),
    /** A CSR of the same name exists that is not this request. */
    INCOMPATIBLE(true),
    /** The CSR was deleted, or replaced (another UID), while waiting. */
    DELETED(true),
    /** No longer wanted (the serving certificate's addresses changed): a new key, a new CSR. */
    CANCELLED(true),
    /** No certificate within the wait; the CSR may still be approved later. */
    TIMEOUT(false),
    /** The API server refused or failed a call (the code is in the cause). */
    API(false);

    private final boolean newKey;

    Reason(boolean newKey) {
      this.newKey = newKey;
    }

    /**
     * Whether the next attempt needs a new key: this CSR can never give a usable certificate, and
     * the same key would find it again by name.
     */
    public boolean needsNewKey() {
      return newKey;
    }
  }

  public RequestException(Reason reason, String message) {
    super(reason, message);
  }

  public Reason reason() {
    return detail();
  }
}
