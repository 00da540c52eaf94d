package io.jkubelet.agent.util;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket on an injected clock: {@code burst} requests at once, then {@code qps} per second,
 * as client-go's {@code flowcontrol.NewTokenBucketRateLimiter} (the budget behind {@code
 * kubeAPIQPS} and {@code kubeAPIBurst}). It only computes; the caller decides how to wait, so a
 * test steps a fake clock instead of sleeping.
 *
 * <p>Kept as a theoretical arrival time (GCRA) in whole nanoseconds, which is the same bucket
 * without floating-point drift: each request pushes {@code tat} one interval ({@code 1/qps}) later,
 * and a request is allowed while {@code tat} stays within {@code burst} intervals of now.
 *
 * <p>{@code qps} may be below one: the event spam filter refills one token every 300 s.
 *
 * <p>Thread-safe: every method is {@code synchronized}, guarding {@code tat}.
 */
public final class TokenBucket {
  private final Clock clock;
  private final long intervalNanos;
  private final long toleranceNanos;
  private Instant tat;

  public TokenBucket(Clock clock, double qps, int burst) {
    if (qps <= 0 || burst <= 0) {
      throw new IllegalArgumentException(
          "the rate budget needs qps > 0 and burst > 0, got qps " + qps + ", burst " + burst);
    }
    this.clock = clock;
    this.intervalNanos = (long) (1_000_000_000L / qps);
    this.toleranceNanos = intervalNanos * burst;
    this.tat = clock.instant();
  }

  /** Takes a token when one is available, and returns zero; otherwise how long until one is. */
  public synchronized Duration tryAcquire() {
    Instant now = clock.instant();
    Instant next = (tat.isAfter(now) ? tat : now).plusNanos(intervalNanos);
    long ahead = Duration.between(now, next).toNanos();
    if (ahead > toleranceNanos) {
      return Duration.ofNanos(ahead - toleranceNanos);
    }
    tat = next;
    return Duration.ZERO;
  }

  /** Takes a token, sleeping on {@code sleeper} until one is available; throws only to give up. */
  public void acquire(Sleeper sleeper) throws InterruptedException {
    for (Duration wait = tryAcquire(); !wait.isZero(); wait = tryAcquire()) {
      sleeper.sleep(wait);
    }
  }

  /**
   * Takes a token whether or not one is available, and returns how long the caller must wait before
   * its request: zero while the bucket holds a token, else until the token it took is due. As
   * client-go's {@code Accept} (golang.org/x/time/rate's {@code Reserve}): a caller that waits this
   * long keeps the rate; one that cannot wait has still spent its token, so those after it wait for
   * it.
   */
  public synchronized Duration reserve() {
    Instant now = clock.instant();
    Instant next = (tat.isAfter(now) ? tat : now).plusNanos(intervalNanos);
    long ahead = Duration.between(now, next).toNanos();
    tat = next;
    return ahead > toleranceNanos ? Duration.ofNanos(ahead - toleranceNanos) : Duration.ZERO;
  }

  /** The tokens available now, for tests and logs. */
  public synchronized double available() {
    Instant now = clock.instant();
    long used = tat.isAfter(now) ? Duration.between(now, tat).toNanos() : 0;
    return (double) (toleranceNanos - used) / intervalNanos;
  }
}
