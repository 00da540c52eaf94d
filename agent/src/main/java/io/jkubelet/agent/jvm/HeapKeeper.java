package io.jkubelet.agent.jvm;

import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Schedulers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives back the heap that the old generation grew into. The serial collector (the launcher's
 * choice for a small daemon) collects, and shrinks, the old generation only when it is full: it
 * grows it instead for as long as {@code -Xmx} allows. What a node agent promotes slowly (a few
 * tens of KB a second when idle) makes the heap, and the resident memory with it, creep up to
 * {@code -Xmx} over an hour or two and stay there; a burst (every container of 110 pods killed and
 * started again) promotes 0.5–0.7 MiB a second and took it from 33 to 193 MiB in four minutes.
 * Every {@code period} ({@link Pace}) this checks how much the old generation grew since its last
 * collection; beyond a quarter of what was live then (and at least {@link #MIN_GROWTH}) it asks for
 * a full collection, at most once per {@code minInterval}. At 110 idle pods (about 30 MiB live,
 * 0.35 MiB promoted a minute) that is a 0.1–0.15 s pause about every 25 minutes, on no pod's path;
 * in a burst one every 30 s at most (half a percent of a core), which holds the old generation
 * within about 25 MiB of what is live. Between collections it stays within the free space that a
 * collection leaves it (a quarter of what is live, with the launcher's {@code MaxHeapFreeRatio} of
 * 20), so it commits little or no more memory. The first check also drops what start-up promoted.
 *
 * <p>Growth that is live does not make it collect more often: each collection measures what is live
 * again, and the next one waits for a quarter of that.
 *
 * <p>NOTE: G1's periodic collections ({@code G1PeriodicGCInterval}) would do this inside the JVM,
 * but G1 costs four or five more threads and memory for its remembered sets; {@code
 * -XX:+DisableExplicitGC} turns this off.
 */
public final class HeapKeeper implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(HeapKeeper.class);

  /** Growth below this never triggers a collection, whatever the live size. */
  static final long MIN_GROWTH = 8L << 20;

  private final Heap heap;
  private final Clock clock;
  private final Pace pace;
  private final OwnedScheduler scheduler;
  private volatile Instant lastCollection = Instant.MIN;
  private final AtomicLong collections = new AtomicLong();

  /**
   * How often a keeper looks (reading two figures of the JVM's), and how often at most it collects.
   */
  public record Pace(Duration period, Duration minInterval) {
    /** The agent's: a look every 10 s, a collection every 30 s at most. */
    public static final Pace AGENT = new Pace(Duration.ofSeconds(10), Duration.ofSeconds(30));
  }

  /** The agent's keeper of this JVM's heap; empty when its collector has no old generation. */
  public static Optional<HeapKeeper> forThisJvm(Clock clock, Schedulers schedulers) {
    return Heap.jvm().map(h -> new HeapKeeper(h, clock, schedulers, Pace.AGENT));
  }

  public HeapKeeper(Heap heap, Clock clock, Schedulers schedulers, Pace pace) {
    this.heap = heap;
    this.clock = clock;
    this.pace = pace;
    this.scheduler =
        new OwnedScheduler(
            schedulers,
            "heap-keeper",
            "HeapKeeper has not started",
            s -> s.withFixedDelay(pace.period(), pace.period(), this::check));
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

  /** Full collections asked for so far. */
  public long collections() {
    return collections.get();
  }

  void check() {
    long live = heap.oldLive();
    long used = heap.oldUsed();
    long grown = used - live;
    Instant now = clock.instant();
    if (grown < Math.max(live / 4, MIN_GROWTH)
        || (lastCollection != Instant.MIN
            && now.isBefore(lastCollection.plus(pace.minInterval())))) {
      return;
    }
    lastCollection = now;
    collections.incrementAndGet();
    heap.collect();
    log.debug(
        "HeapKeeper: the old generation grew from {} to {} MiB since its last collection; now {} MiB",
        live >> 20,
        used >> 20,
        heap.oldLive() >> 20);
  }
}
