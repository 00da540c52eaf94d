package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a static pod source (the manifest directory or the manifest URL) is given besides where to
 * look: how often it looks, the node its pods are for, the time it runs on, and where each full set
 * of pods goes.
 */
record SourceOptions(
    Duration period,
    String nodeName,
    Clock clock,
    Schedulers schedulers,
    Consumer<List<Pod>> sink) {
  SourceOptions {
    Objects.requireNonNull(period, "period");
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(schedulers, "schedulers");
    Objects.requireNonNull(sink, "sink");
  }

  /**
   * A new scheduler named {@code name} that runs {@code look} now, then a period after each run.
   */
  Scheduler everyPeriod(String name, Runnable look) {
    Scheduler scheduler = schedulers.create(name);
    scheduler.withFixedDelay(Duration.ZERO, period, look);
    return scheduler;
  }
}
