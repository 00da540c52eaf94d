package io.jkubelet.agent.util;

/**
 * A checked exception that says what failed beside its message: a kind, an HTTP status, a
 * volume's name. The one definition of that detail for every such exception of the agent ({@link
 * RuntimeFailure} is the unchecked twin); a subclass gives it its own name ({@code reason()},
 * {@code code()}, {@code volume()}) and says what it means. A cause is given by {@link
 * Errors#withCause}.
 *
 * @param <D> the detail's type
 */
public abstract class Failure<D> extends Exception {
  private final D detail;

  protected Failure(D detail, String message) {
    super(message);
    this.detail = detail;
  }

  protected final D detail() {
    return detail;
  }
}
