package io.jkubelet.agent.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How a daemon command runs: start, then wait until SIGTERM, whose shutdown hook stops what was
 * started. One hook per JVM, so a command run twice in one JVM (tests) adds no second one.
 */
final class UntilStopped {
  private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

  private UntilStopped() {}

  /** What starts the daemon; it may wait. */
  interface Start {
    void run() throws InterruptedException;
  }

  static void run(Start start, Runnable stop) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    if (HOOK_INSTALLED.compareAndSet(false, true)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stop.run();
                    stopped.countDown();
                  },
                  "shutdown"));
    }
    start.run();
    stopped.await();
  }
}
