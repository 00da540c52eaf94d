package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ordered list of lifecycles, started in order and stopped in reverse: the composition root's
 * one list. A start that fails stops those already started and is thrown. A stop that comes while
 * the start is still going on (SIGTERM during a slow start) stops what has started, and the start
 * starts nothing more: the part whose start was in flight is stopped as soon as it returns, and a
 * failure it then throws is the stop's doing, logged rather than thrown. Started once.
 */
public final class LifecycleList {
  private static final Logger log = LoggerFactory.getLogger(LifecycleList.class);

  /** A part's stop slower than this is logged. */
  static final Duration SLOW_STOP = Duration.ofSeconds(1);

  private final List<Lifecycle> order;
  private final List<Lifecycle> running = new ArrayList<>(); // guarded by this
  private boolean started; // guarded by this
  private boolean stopping; // guarded by this

  public LifecycleList(List<Lifecycle> order) {
    this.order = List.copyOf(order);
  }

  /** Starts each in order; returns false when a stop came first and the start gave up. */
  public boolean start() {
    synchronized (this) {
      if (started || stopping) {
        return false;
      }
      started = true;
    }
    for (Lifecycle l : order) {
      if (isStopping()) {
        return false;
      }
      try {
        l.start();
      } catch (RuntimeException e) {
        if (isStopping()) {
          log.info("Starting {} ended with the stop: {}", l, e.toString());
          return false;
        }
        stop();
        throw e;
      }
      if (stoppedMeanwhile(l)) {
        stopOne(l);
        return false;
      }
    }
    return true;
  }

  private synchronized boolean isStopping() {
    return stopping;
  }

  /** Whether a stop came while {@code l} was starting; if not, {@code l} now counts as running. */
  private synchronized boolean stoppedMeanwhile(Lifecycle l) {
    if (stopping) {
      return true;
    }
    running.add(l);
    return false;
  }

  /** Stops, in reverse order, every part that has started; a stop that fails is logged. */
  public void stop() {
    List<Lifecycle> toStop;
    synchronized (this) {
      stopping = true;
      toStop = List.copyOf(running);
      running.clear();
    }
    for (int i = toStop.size() - 1; i >= 0; i--) {
      stopOne(toStop.get(i));
    }
  }

  /**
   * Stops one part; one that takes over {@link #SLOW_STOP} is named in the log with its time, so
   * that a slow shutdown (systemd waits for it) says which part held it.
   */
  private static void stopOne(Lifecycle l) {
    long start = System.nanoTime(); // a duration for the log only: no clock is needed
    try {
      l.stop();
    } catch (RuntimeException e) {
      log.error("Stopping {} failed: {}", l, e.toString(), e);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (took.compareTo(SLOW_STOP) > 0) {
      log.info("Stopping {} took {} ms", l, took.toMillis());
    }
  }

  /** The parts in their start order. */
  public List<Lifecycle> order() {
    return order;
  }
}
