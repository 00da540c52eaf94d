package io.jkubelet.agent.util;

import java.time.Duration;

/**
 * Runs delayed and periodic tasks on the injected time. Every periodic task in jkubelet (the sync
 * and housekeeping ticks, the PLEG relist, the source rescans, the probes, the node heartbeats)
 * runs on one of these, so that a test can step them all with a fake clock instead of waiting.
 *
 * <p>Obtained from {@link Schedulers#create}, owned by the subsystem that created it, and closed by
 * that subsystem's {@code stop()}. Tasks run one at a time, in due order; a task that throws is
 * logged and keeps its schedule.
 */
public interface Scheduler {
  /** Runs the task after {@code initialDelay}, then every {@code period} from that start. */
  Task atFixedRate(Duration initialDelay, Duration period, Runnable task);

  /** Runs the task after {@code initialDelay}, then {@code delay} after each run ends. */
  Task withFixedDelay(Duration initialDelay, Duration delay, Runnable task);

  /** Runs the task once, after {@code delay}. */
  Task after(Duration delay, Runnable task);

  /** Cancels every task and waits briefly for a running one to end. Idempotent. */
  void close();

  /** A scheduled task. */
  interface Task {
    /** Stops later runs; a run in progress completes. Idempotent. */
    void cancel();
  }
}
