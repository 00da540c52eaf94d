package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * STUB of the event correlator (aggregation, dedup, spam filter), written against the agreed
 * contract so the pipeline compiles: it answers {@link Correlation.Create} for every event. The
 * real implementation comes from the correlator branch and replaces this file on merge.
 *
 * <p>Thread-safe.
 */
public final class EventCorrelator {
  private final Clock clock;
  private final CorrelatorOptions options;

  public EventCorrelator(Clock clock, CorrelatorOptions options) {
    this.clock = Objects.requireNonNull(clock);
    this.options = Objects.requireNonNull(options);
  }

  /** What to do with the event. Thread-safe. */
  public Correlation correlate(Event event) {
    return new Correlation.Create(event);
  }

  /** Records an event the sink has written. */
  public void updateState(Event written) {}

  /** Drops so far, by cause and by reason. */
  public CorrelatorStats stats() {
    return new CorrelatorStats(Map.of(), Map.of());
  }
}
