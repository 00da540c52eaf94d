package io.jkubelet.agent.util;

/**
 * The unchecked {@link Failure}: an exception that says what failed beside its message (a kind, an
 * HTTP status, a D-Bus error's name), defined once for every unchecked exception of the agent that
 * carries one. A cause is given by {@link Errors#withCause}.
 *
 * <p>NOTE: Java allows no generic exception, so the detail is held as an {@code Object} and read
 * back by {@link #detail()} as the type the subclass stored.
 */
public abstract class RuntimeFailure extends RuntimeException {
  private final Object detail;

  protected RuntimeFailure(Object detail, String message) {
    super(message);
    this.detail = detail;
  }

  /** The detail, as the subclass gave it to the constructor; the subclass reads it as its type. */
  @SuppressWarnings("unchecked")
  protected final <D> D detail() {
    return (D) detail;
  }
}
