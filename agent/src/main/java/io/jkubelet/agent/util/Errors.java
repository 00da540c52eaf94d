package io.jkubelet.agent.util;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failure was, said briefly: the root cause of a wrapped exception, and the HTTP status of
 * an API server answer. The one place that walks causes and reads fabric8's error codes, and the
 * one that gives a failure its cause ({@link #withCause}).
 */
public final class Errors {
  private Errors() {}

  /**
   * The failure, caused by {@code cause}: {@link Throwable#initCause} that keeps the failure's own
   * type, for {@code throw Errors.withCause(new MountFailure(volume, "..."), e)}. jkubelet's
   * exceptions each have one constructor, without a cause, and no factories of their own: this is
   * the one way any of them gets its cause.
   *
   * @param failure a new exception whose cause is not set yet
   * @throws IllegalStateException if the failure's cause was set already
   */
  public static <X extends Throwable> X withCause(X failure, Throwable cause) {
    failure.initCause(cause);
    return failure;
  }

  /** The innermost cause: what fabric8 or docker-java wrapped in "An error has occurred.". */
  public static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  /** The first throwable in the cause chain of the given type, if any. */
  public static <T extends Throwable> java.util.Optional<T> find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return java.util.Optional.of(type.cast(t));
      }
    }
    return java.util.Optional.empty();
  }

  /** The root cause as "SimpleName: message", e.g. "ConnectException: Connection refused". */
  public static String describeRoot(Throwable e) {
    Throwable root = rootCause(e);
    return root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage());
  }

  /** The HTTP status of an API server answer, or 0 when there was no answer. */
  public static int httpCode(Throwable e) {
    return e instanceof KubernetesClientException k && k.getCode() > 0 ? k.getCode() : 0;
  }

  /** Whether the API server answered 404 Not Found. */
  public static boolean isNotFound(Throwable e) {
    return httpCode(e) == 404;
  }

  /** Whether the API server answered 409 Conflict (a version, precondition or name clash). */
  public static boolean isConflict(Throwable e) {
    return httpCode(e) == 409;
  }

  /**
   * Whether the API server refused the request for a reason retrying does not fix (a 4xx other than
   * timeouts, conflicts and throttling), such as a validation error or missing permissions.
   */
  public static boolean isRefused(Throwable e) {
    int code = httpCode(e);
    return code >= 400 && code < 500 && code != 408 && code != 409 && code != 429;
  }

  /** The API server's own message for an answer, or null when it sent none. */
  public static String apiMessage(Throwable e) {
    if (e instanceof KubernetesClientException k
        && k.getStatus() != null
        && k.getStatus().getMessage() != null) {
      return k.getStatus().getMessage();
    }
    return null;
  }

  /**
   * A short description of an API failure: "HTTP code: message" when the server answered, else the
   * root cause.
   */
  public static String describeApi(Throwable e) {
    int code = httpCode(e);
    if (code > 0) {
      String message = apiMessage(e);
      return "HTTP " + code + ": " + (message != null ? message : e.getMessage());
    }
    return describeRoot(e);
  }
}
