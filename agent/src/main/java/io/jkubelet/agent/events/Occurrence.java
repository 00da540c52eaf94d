package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import java.time.Instant;
import java.util.Map;

/**
 * One thing to record about an object: what {@link EventRecorder#emit} takes, and what {@link
 * BroadcastRecorder} makes an Event of.
 *
 * @param involved the object, with its exact UID (a container's carries its {@code fieldPath})
 * @param when when it happened; null for now
 * @param annotations extra annotations on the Event object; empty for none
 * @param type Normal or Warning
 * @param reason the Event's reason
 * @param message the Event's message
 */
public record Occurrence(
    ObjectReference involved,
    Instant when,
    Map<String, String> annotations,
    EventType type,
    String reason,
    String message) {

  /**
   * Something that happens now, with no extra annotations: what {@link EventRecorder#event}
   * records.
   */
  public static Occurrence now(
      ObjectReference involved, EventType type, String reason, String message) {
    return new Occurrence(involved, null, Map.of(), type, reason, message);
  }
}
