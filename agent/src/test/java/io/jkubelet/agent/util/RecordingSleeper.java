package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A {@link Sleeper} that records each wait and steps a fake clock by it. Thread-safe. */
public final class RecordingSleeper implements Sleeper {
  private final FakeClock clock;
  private final List<Duration> sleeps = new ArrayList<>();

  public RecordingSleeper(FakeClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized void sleep(Duration d) {
    sleeps.add(d);
    clock.step(d);
  }

  public synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }
}
