package io.jkubelet.agent.util;

/**
 * A checked exception that says what failed beside its message: a kind, an HTTP status, a volume's
 * name. The one definition of that detail for every such exception of the agent ({@link
 * RuntimeFailure} is the unchecked twin); a subclass gives it its own name ({@code reason()},
 * {@code code()}, {@code volume()}) and says what it means. A cause is given by {@link
 * Errors#withCause}.
 *
 * <p>NOTE: Java allows no generic exception, so the detail is held as an {@code Object} and read
 * back by {@link #detail()} as the type the subclass stored.
 */
public abstract class Failure extends Exception {
  private final Object detail;

  protected Failure(Object detail, String message) {
    super(message);
    this.detail = detail;
  }

  /** The detail, as the subclass gave it to the constructor; the subclass reads it as its type. */
  @SuppressWarnings("unchecked")
  protected final <D> D detail() {
    return (D) detail;
  }
}
