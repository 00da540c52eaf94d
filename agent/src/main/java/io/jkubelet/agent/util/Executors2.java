package io.jkubelet.agent.util;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** Named threads and the shutdown sequence: shutdown, awaitTermination, then shutdownNow. */
public final class Executors2 {
  private Executors2() {}

  /** A single-threaded scheduler on a named daemon platform thread. */
  public static ScheduledExecutorService scheduler(String name) {
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(
            1, r -> Thread.ofPlatform().name(name).daemon(true).unstarted(r));
    s.setRemoveOnCancelPolicy(true);
    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return s;
  }

  public static void shutdown(ExecutorService executor, long timeoutMillis) {
    if (executor == null) {
      return;
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
