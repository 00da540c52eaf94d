package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import java.time.Instant;
import java.util.Map;

/**
 * Records what happened to an object. Producers never block: an implementation queues or drops, and
 * counts what it drops.
 *
 * <p>The involved object is a reference with the object's exact UID; container events carry {@code
 * fieldPath} {@code spec.containers{name}} or {@code spec.initContainers{name}}.
 */
public interface EventRecorder {

  void event(ObjectReference involved, EventType type, String reason, String message);

  default void eventf(
      ObjectReference involved, EventType type, String reason, String format, Object... args) {
    event(involved, type, reason, String.format(format, args));
  }

  /**
   * The general form every other method comes down to: an event that happened at {@code when} (null
   * for now) with extra annotations on the Event object (empty for none). The default ignores both
   * and calls {@link #event}, so a recorder written as a lambda still records everything.
   */
  default void emit(Occurrence o) {
    event(o.involved(), o.type(), o.reason(), o.message());
  }

  /** An event that happened at {@code when}, as client-go's {@code PastEventf}. */
  default void pastEventf(
      ObjectReference involved,
      Instant when,
      EventType type,
      String reason,
      String format,
      Object... args) {
    emit(new Occurrence(involved, when, Map.of(), type, reason, String.format(format, args)));
  }

  /** An event with annotations on the Event object, as client-go's {@code AnnotatedEventf}. */
  default void annotatedEventf(
      ObjectReference involved,
      Map<String, String> annotations,
      EventType type,
      String reason,
      String format,
      Object... args) {
    emit(new Occurrence(involved, null, annotations, type, reason, String.format(format, args)));
  }

  /**
   * The pod with this UID is gone from the node: what the pipeline behind the recorder remembers
   * about its events (the correlators' caches) can go. The default remembers nothing.
   */
  default void forget(String podUid) {}

  /** A recorder that records nothing, for tests that do not look at events. */
  EventRecorder NOOP = (involved, type, reason, message) -> {};
}
