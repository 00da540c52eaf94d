package io.jkubelet.agent.util;

import java.time.Clock;

/**
 * Everything that tells or spends time, injected as one: the clock, the sleeper for retries, and
 * the schedulers for periodic tasks. {@link #system()} is the only place the real ones are made;
 * tests build a fake from a fake clock.
 */
public record Time(Clock clock, Sleeper sleeper, Schedulers schedulers) {
  public Time {
    if (clock == null || sleeper == null || schedulers == null) {
      throw new IllegalArgumentException("clock, sleeper and schedulers are required");
    }
  }

  /** Real time: the UTC system clock, {@link Thread#sleep} and platform-thread schedulers. */
  public static Time system() {
    return new Time(Clock.systemUTC(), Sleeper.SYSTEM, Schedulers.system());
  }
}
