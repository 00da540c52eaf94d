package io.jkubelet.agent.util;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * A value computed at most once per {@code ttl}: the last result is returned until it is older than
 * that. For checks that are cheap to read and costly to make, e.g. the runtime's health behind
 * {@code /healthz}, which probes may ask many times a second. Thread-safe; concurrent callers of an
 * expired value wait for one computation.
 */
public final class Memo<T> implements Supplier<T> {
  private final Duration ttl;
  private final Clock clock;
  private final Supplier<T> compute;
  private T value;
  private Instant at;

  public Memo(Duration ttl, Clock clock, Supplier<T> compute) {
    this.ttl = ttl;
    this.clock = clock;
    this.compute = compute;
  }

  @Override
  public synchronized T get() {
    Instant now = clock.instant();
    if (at == null || !now.isBefore(at.plus(ttl))) {
      value = compute.get();
      at = now;
    }
    return value;
  }
}
