package io.jkubelet.agent.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * How a daemon command runs: start, then wait until SIGTERM, whose shutdown hook stops what was
 * started. One hook per JVM, so a command run twice in one JVM (tests) adds no second one.
 *
 * <p>SIGTERM, as a service manager stops a daemon, ends the process with status 0 once the stop is
 * done, as upstream's kubelet does. Left to the JVM, it ends with 143 (128 + the signal), which
 * systemd counts as a failure: after {@code systemctl stop kubelet} the unit was {@code failed}
 * rather than {@code inactive} (the operator's-machine bed's {@code service} scenario, 29 Nov). Any
 * other way out of the JVM (SIGINT, {@code System.exit}) keeps its own status.
 */
final class UntilStopped {
  private static final Logger log = LoggerFactory.getLogger(UntilStopped.class);
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
      exitZeroOnSigterm();
    }
    start.run();
    stopped.await();
  }

  /** SIGTERM exits with 0: the shutdown hook still runs, as {@link System#exit} runs hooks. */
  private static void exitZeroOnSigterm() {
    try {
      Signal.handle(new Signal("TERM"), signal -> System.exit(0));
    } catch (IllegalArgumentException e) {
      // -Xrs, or a JVM that reserves the signal: the JVM's own handling (status 143) stays.
      log.warn(
          "SIGTERM keeps the JVM's exit status 143 (a failure to systemd): {}", e.getMessage());
    }
  }
}
