package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;

/**
 * The one place that reads docker-java's exceptions: what kind of {@link RuntimeError} each is,
 * with the engine's own message, and which answers mean "already done" to an idempotent call.
 * Stateless.
 */
final class DockerErrors {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DockerErrors() {}

  /**
   * Maps a docker-java exception: 404 is {@code NOT_FOUND}; any other engine answer is {@code
   * onEngineError} when given (the operation's own kind, e.g. {@code CREATE}), else {@code
   * UNAVAILABLE} for a server error and {@code OTHER} for a client error; an I/O failure (no
   * connection, a timeout) is {@code UNAVAILABLE}. The message is the engine's own. A {@link
   * RuntimeError} is returned as it is.
   */
  static RuntimeError translate(RuntimeException e, Kind onEngineError) {
    if (e instanceof RuntimeError re) {
      return re;
    }
    if (e instanceof NotFoundException nf) {
      return Errors.withCause(new RuntimeError(Kind.NOT_FOUND, engineMessage(nf)), e);
    }
    if (e instanceof DockerException de) {
      Kind kind =
          onEngineError != null
              ? onEngineError
              : de.getHttpStatus() >= 500 ? Kind.UNAVAILABLE : Kind.OTHER;
      return Errors.withCause(new RuntimeError(kind, engineMessage(de)), e);
    }
    if (isConnectionFailure(e)) {
      return Errors.withCause(new RuntimeError(Kind.UNAVAILABLE, failureMessage(e)), e);
    }
    return Errors.withCause(new RuntimeError(Kind.OTHER, failureMessage(e)), e);
  }

  /** {@link #translate} for a failure that may not be a {@link RuntimeException}. */
  static RuntimeError translate(Throwable failure, Kind onEngineError) {
    return failure instanceof RuntimeException re
        ? translate(re, onEngineError)
        : Errors.withCause(new RuntimeError(Kind.OTHER, failure.toString()), failure);
  }

  /** 404: the container, exec or image does not exist (any more). */
  static boolean isNotFound(Throwable e) {
    return e instanceof NotFoundException;
  }

  /** 409: a name already in use, or a container in the wrong state for the call. */
  static boolean isConflict(Throwable e) {
    return e instanceof ConflictException;
  }

  /** 304: a start of a running container, or a stop of a stopped one. */
  static boolean isNotModified(Throwable e) {
    return e instanceof NotModifiedException;
  }

  /** 409 "removal ... already in progress": another remove of the same container runs. */
  static boolean isRemovalInProgress(Throwable e) {
    return e instanceof ConflictException c && engineMessage(c).contains("already in progress");
  }

  /** What to say about a failure: the engine's message, or that it did not answer, and why. */
  static String failureMessage(Throwable e) {
    if (e instanceof DockerException de) {
      return engineMessage(de);
    }
    if (isConnectionFailure(e)) {
      return "the Docker engine did not answer: " + Errors.describeRoot(e);
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  /**
   * The engine's message from a docker-java exception, whose text is {@code Status 404:
   * {"message":"No such container: x"}}.
   */
  static String engineMessage(DockerException e) {
    String text = e.getMessage() == null ? "" : e.getMessage().trim();
    int brace = text.indexOf('{');
    if (brace >= 0) {
      try {
        JsonNode node = JSON.readTree(text.substring(brace));
        if (node != null && node.hasNonNull("message")) {
          return node.get("message").asText();
        }
      } catch (IOException | RuntimeException ignored) {
        // not JSON: fall through
      }
    }
    return text.replaceFirst("^Status \\d+:\\s*", "");
  }

  /** The {@code message} of an engine's JSON error body, or the body itself if it has none. */
  static String messageOf(String body) {
    String text = body == null ? "" : body.trim();
    if (text.startsWith("{")) {
      try {
        JsonNode node = JSON.readTree(text);
        if (node != null && node.hasNonNull("message")) {
          return node.get("message").asText();
        }
      } catch (IOException | RuntimeException ignored) {
        // not JSON: the text as it is
      }
    }
    return text;
  }

  /** No answer: an I/O failure (refused, reset, timed out) somewhere in the cause chain. */
  private static boolean isConnectionFailure(Throwable e) {
    return Errors.find(e, IOException.class).isPresent();
  }
}
