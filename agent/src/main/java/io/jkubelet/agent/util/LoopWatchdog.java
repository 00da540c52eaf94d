package io.jkubelet.agent.util;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells when an event loop of the process ({@link NettyLoops}) is blocked: every {@link #PERIOD} it
 * hands each loop a task that only notes when it ran; a task that has waited longer than {@link
 * #BLOCKED} means something on the loop blocks, and the loop's thread's stack is logged as a
 * warning (once per block; and once more when the loop runs again). Everything the process serves
 * and asks (the kubelet API, the probes, the API clients) waits on that loop meanwhile.
 *
 * <p>NOTE: Vert.x's blocked-thread checker did this for Vert.x's own loops, on a timer thread of
 * its own; it is stopped ({@code client.ApiHttpClients}), and this watches the one loop everything
 * shares, on a scheduler.
 */
public final class LoopWatchdog implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(LoopWatchdog.class);

  /** How often each loop is handed a task. */
  public static final Duration PERIOD = Duration.ofSeconds(1);

  /** How long a task may wait before its loop counts as blocked. */
  public static final Duration BLOCKED = Duration.ofSeconds(2);

  private final Supplier<? extends EventExecutorGroup> loops;
  private final Clock clock;
  private final OwnedScheduler scheduler;
  private final Map<EventExecutor, Probe> probes = new ConcurrentHashMap<>();
  private final AtomicLong blocks = new AtomicLong();

  /** One loop's last task: when it was handed over, and whether it has run. */
  private static final class Probe {
    volatile Instant sent;
    volatile Instant ran;
    volatile Thread thread;
    volatile boolean reported;
  }

  /** Watches {@code loops}, asked for at the first check. Starts nothing. */
  public LoopWatchdog(
      Supplier<? extends EventExecutorGroup> loops, Clock clock, Schedulers schedulers) {
    this.loops = loops;
    this.clock = clock;
    this.scheduler =
        new OwnedScheduler(
            schedulers,
            "netty-loop-watch",
            "LoopWatchdog has not started",
            s -> s.atFixedRate(Duration.ZERO, PERIOD, this::check));
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

  /** Blocks seen so far. */
  public long blocks() {
    return blocks.get();
  }

  void check() {
    Instant now = clock.instant();
    for (EventExecutor loop : loops.get()) {
      Probe p = probes.computeIfAbsent(loop, l -> new Probe());
      if (p.sent != null && p.ran == null) {
        Duration waited = Duration.between(p.sent, now);
        if (waited.compareTo(BLOCKED) > 0 && !p.reported) {
          p.reported = true;
          blocks.incrementAndGet();
          Thread t = p.thread;
          log.warn(
              "Netty loop {} has run nothing for {} ms: something on it blocks, and the kubelet"
                  + " API, the probes and the API clients wait for it; its stack:\n{}",
              t == null ? "?" : t.getName(),
              waited.toMillis(),
              t == null ? "(not known yet)" : stack(t));
        }
        continue;
      }
      if (p.reported) {
        log.warn(
            "Netty loop {} runs again after {} ms",
            p.thread == null ? "?" : p.thread.getName(),
            Duration.between(p.sent, p.ran).toMillis());
      }
      Probe next = new Probe();
      next.thread = p.thread;
      next.sent = now;
      probes.put(loop, next);
      loop.execute(
          () -> {
            next.thread = Thread.currentThread();
            next.ran = clock.instant();
          });
    }
  }

  private static String stack(Thread t) {
    return Arrays.stream(t.getStackTrace()).map(e -> "\tat " + e).collect(Collectors.joining("\n"));
  }
}
