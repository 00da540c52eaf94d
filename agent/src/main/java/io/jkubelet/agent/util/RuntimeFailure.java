package io.jkubelet.agent.util;

/**
 * The unchecked {@link Failure}: an exception that says what failed beside its message (a kind, an
 * HTTP status, a D-Bus error's name), defined once for every unchecked exception of the agent that
 * carries one. A cause is given by {@link Errors#withCause}.
 *
 * @param <D> the detail's type
 */
public abstract class RuntimeFailure<D> extends RuntimeException {
  private final D detail;

  protected RuntimeFailure(D detail, String message) {
    super(message);
    this.detail = detail;
  }

  protected final D detail() {
    return detail;
  }
}
