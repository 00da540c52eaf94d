package io.jkubelet.agent.util;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-key exponential backoff on an injected clock, ported from client-go's {@code
 * flowcontrol.Backoff}
 * (https://github.com/kubernetes/client-go/blob/v0.20.2/util/flowcontrol/backoff.go).
 *
 * <p>{@link #next} starts a key at {@code initial} and doubles it up to {@code max} on each call.
 * An entry whose last update is older than {@code 2 * max} has expired and starts over, so a
 * container that ran for ten minutes (with max 5 min) restarts from 10 s again.
 *
 * <p>{@link Policy} is the same doubling without keys, for a loop that retries one thing (the node
 * registration, a pod status write, a poll): every retry in jkubelet uses one or the other.
 *
 * <p>Thread-safe; {@code guard} guards {@code entries}.
 */
public final class Backoff {
  private final Clock clock;
  private final Policy policy;
  private final Duration max;
  private final Guard guard = new Guard();
  private final Map<String, Entry> entries = new HashMap<>();

  private record Entry(Duration backoff, Instant lastUpdate) {}

  /**
   * A doubling delay: {@code initial} first, then twice the last delay, never more than {@code
   * max}. Immutable.
   */
  public record Policy(Duration initial, Duration max) {
    public Policy {
      if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
        throw new IllegalArgumentException("need 0 < initial <= max, got " + initial + ", " + max);
      }
    }

    /** The delay after {@code last}; {@code initial} when there was none (null). */
    public Duration next(Duration last) {
      if (last == null) {
        return initial;
      }
      Duration doubled = last.multipliedBy(2);
      return doubled.compareTo(max) > 0 ? max : doubled;
    }
  }

  public Backoff(Clock clock, Duration initial, Duration max) {
    this.policy = new Policy(initial, max);
    this.clock = clock;
    this.max = max;
  }

  /** Moves the key to its next backoff, recording {@code eventTime} as its last update. */
  public void next(String key, Instant eventTime) {
    guard.run(
        () -> {
          Entry e = entries.get(key);
          Duration last = e == null || expired(e, eventTime) ? null : e.backoff;
          entries.put(key, new Entry(policy.next(last), eventTime));
        });
  }

  /**
   * Whether less than the key's current backoff has passed since {@code eventTime}, e.g. since the
   * container last finished.
   */
  public boolean isInBackOffSince(String key, Instant eventTime) {
    return remaining(key, eventTime).compareTo(Duration.ZERO) > 0;
  }

  /** How long until the backoff from {@code eventTime} ends; zero when it has. */
  public Duration remaining(String key, Instant eventTime) {
    return guard.get(
        () -> {
          Entry e = entries.get(key);
          Instant now = clock.instant();
          if (e == null || expired(e, now)) {
            return Duration.ZERO;
          }
          Duration left = Duration.between(now, eventTime.plus(e.backoff));
          return left.isNegative() ? Duration.ZERO : left;
        });
  }

  /** How long until the backoff from the key's last update ends; zero when it has. */
  public Duration remainingSinceUpdate(String key) {
    return guard.get(
        () -> {
          Entry e = entries.get(key);
          return e == null ? Duration.ZERO : remaining(key, e.lastUpdate);
        });
  }

  /** The key's current backoff, or zero when it has none. */
  public Duration get(String key) {
    return guard.get(
        () -> {
          Entry e = entries.get(key);
          return e == null ? Duration.ZERO : e.backoff;
        });
  }

  /** Forgets every key that starts with the prefix, e.g. a pod's UID when it goes away. */
  public void forgetPrefix(String prefix) {
    guard.run(() -> entries.keySet().removeIf(k -> k.startsWith(prefix)));
  }

  /** Drops entries that have expired, so the map does not grow without bound. */
  public void gc() {
    guard.run(
        () -> {
          Instant now = clock.instant();
          entries.values().removeIf(e -> expired(e, now));
        });
  }

  private boolean expired(Entry e, Instant at) {
    return Duration.between(e.lastUpdate, at).compareTo(max.multipliedBy(2)) > 0;
  }
}
