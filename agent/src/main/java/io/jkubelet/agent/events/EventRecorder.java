package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;

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

  /** A recorder that records nothing, for tests that do not look at events. */
  EventRecorder NOOP = (involved, type, reason, message) -> {};
}
