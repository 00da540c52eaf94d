package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;

/**
 * STUB: what the correlator decided about an event. The real type comes from the correlator branch;
 * this file only lets the event pipeline compile against the agreed contract.
 */
public sealed interface Correlation {
  /** Write the event as a new object. */
  record Create(Event event) implements Correlation {}

  /**
   * Patch the existing event named {@code event.metadata.name} with {@code patch}, a JSON
   * strategic-merge body {@code {"count":N,"lastTimestamp":"...","message":"..."}}.
   */
  record Update(Event event, String patch) implements Correlation {}

  /** Do not write the event, for {@code cause}. */
  record Drop(Event event, String cause) implements Correlation {}
}
