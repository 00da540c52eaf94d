package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import java.util.List;

/**
 * The calls the sinks make on an {@link EventCorrelator}, which implements it, as a seam so that
 * tests can script the correlator's answers (Update, Drop) without depending on its policy.
 */
interface Correlator {
  Correlation correlate(Event event);

  void updateState(Event written);

  /** After a write whose answer may lack what was sent's annotations. */
  default void updateState(Event sent, Event written) {
    updateState(written);
  }

  CorrelatorStats stats();

  /** Forgets what it holds about the object with this UID; nothing for a scripted correlator. */
  default void forget(String uid) {}

  /** Its caches' sizes; none for a scripted correlator. */
  default List<EventCorrelator.CacheSize> caches() {
    return List.of();
  }
}
