package io.jkubelet.agent.events;

import java.time.Duration;

/** STUB: the correlator's options, as agreed; the real record comes from the correlator branch. */
public record CorrelatorOptions(
    int lruSize,
    int maxSimilarEvents,
    Duration aggregateWindow,
    double refillPerSecond,
    int burst,
    boolean protectWarnings) {

  public static CorrelatorOptions defaults() {
    return new CorrelatorOptions(4096, 10, Duration.ofMinutes(10), 1.0 / 300, 25, true);
  }

  public static CorrelatorOptions upstream() {
    return new CorrelatorOptions(4096, 10, Duration.ofMinutes(10), 1.0 / 300, 25, false);
  }

  public CorrelatorOptions withRate(int eventRecordQPS, int eventBurst) {
    return this;
  }
}
