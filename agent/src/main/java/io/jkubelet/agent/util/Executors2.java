package io.jkubelet.agent.util;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** The shutdown sequence of an executor: shutdown, awaitTermination, then shutdownNow. */
public final class Executors2 {
  private Executors2() {}

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
