package io.jkubelet.agent.jvm;

import io.jkubelet.agent.util.LibC;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the C library's free memory back to the kernel every {@link #PERIOD} ({@code
 * malloc_trim(3)}): what the JVM's own threads, Netty's and the TLS library's native allocations
 * freed stays in glibc's arenas, and so in the resident memory, until then.
 *
 * <p>NOTE: the JVM does the same with {@code -XX:TrimNativeHeapInterval} (JDK 22 on), on a thread
 * of its own for the process's life; this does it on a scheduler, as every other periodic task of
 * the agent runs.
 */
public final class NativeHeapTrimmer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(NativeHeapTrimmer.class);

  /** How often the process's native heap is trimmed: the JVM's trimmer's pace that we used. */
  public static final Duration PERIOD = Duration.ofMinutes(1);

  /** One trim: whether memory went back. */
  @FunctionalInterface
  public interface Trim {
    boolean trim() throws IOException;
  }

  private final Trim trim;
  private final AtomicLong trims = new AtomicLong();
  private final OwnedScheduler scheduler;
  private volatile Scheduler.Task task;

  public NativeHeapTrimmer(Schedulers schedulers, Duration period, Trim trim) {
    this.trim = trim;
    this.scheduler =
        new OwnedScheduler(
            schedulers,
            "native-heap-trim",
            "NativeHeapTrimmer has not started",
            s -> task = s.atFixedRate(period, period, this::trimOnce));
  }

  /** This process's trimmer, through the C library. */
  public static NativeHeapTrimmer forThisProcess(Schedulers schedulers) {
    return new NativeHeapTrimmer(schedulers, PERIOD, LibC::mallocTrim);
  }

  @Override
  public void start() {
    scheduler.start();
  }

  @Override
  public void stop() {
    scheduler.stop();
  }

  @Override
  public Health healthy() {
    return scheduler.healthy();
  }

  /** Trims made so far. */
  public long trims() {
    return trims.get();
  }

  void trimOnce() {
    try {
      trim.trim();
      trims.incrementAndGet();
    } catch (IOException e) {
      // No C library to call (not glibc): nothing to trim, now or later.
      log.info(
          "NativeHeapTrimmer: cannot trim the native heap ({}); not trying again", e.getMessage());
      task.cancel();
    }
  }
}
