package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes {@link Scheduler}s. {@link #system()} gives each one a named daemon platform thread; tests
 * pass a fake whose schedulers run when a fake clock is stepped.
 */
@FunctionalInterface
public interface Schedulers {
  /** A new scheduler; {@code name} names its thread, e.g. "pleg". Starts nothing until used. */
  Scheduler create(String name);

  /** Schedulers on real time, one platform thread each. */
  static Schedulers system() {
    return ExecutorScheduler::new;
  }

  /** A {@link Scheduler} on a single-threaded {@link ScheduledThreadPoolExecutor}. */
  final class ExecutorScheduler implements Scheduler {
    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
    private final String name;
    private final ScheduledThreadPoolExecutor executor;

    ExecutorScheduler(String name) {
      this.name = name;
      this.executor =
          new ScheduledThreadPoolExecutor(
              1, r -> Thread.ofPlatform().name(name).daemon(true).unstarted(r));
      executor.setRemoveOnCancelPolicy(true);
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    @Override
    public Task atFixedRate(Duration initialDelay, Duration period, Runnable task) {
      return cancellable(
          executor.scheduleAtFixedRate(
              guarded(task), initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS));
    }

    @Override
    public Task withFixedDelay(Duration initialDelay, Duration delay, Runnable task) {
      return cancellable(
          executor.scheduleWithFixedDelay(
              guarded(task), initialDelay.toNanos(), delay.toNanos(), TimeUnit.NANOSECONDS));
    }

    @Override
    public Task after(Duration delay, Runnable task) {
      return cancellable(executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS));
    }

    @Override
    public void close() {
      Executors2.shutdown(executor, 1000);
    }

    /** A periodic task that throws would never run again; log it and keep the schedule. */
    private Runnable guarded(Runnable task) {
      return () -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.error("Scheduler {}: a task failed", name, e);
        }
      };
    }

    private static Task cancellable(ScheduledFuture<?> f) {
      return () -> f.cancel(false);
    }
  }
}
