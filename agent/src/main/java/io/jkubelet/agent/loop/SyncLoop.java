package io.jkubelet.agent.loop;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.prober.ProberEvent;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's main loop ({@code syncLoop} and {@code syncLoopIteration} in upstream's {@code
 * kubelet.go}): it takes one input at a time from the {@link Select} and dispatches it to the
 * {@link SyncHandler}. It never blocks on a pod: the handler hands work to the pod workers.
 *
 * <p>{@link #runOnce} is one iteration; tests drive it with hand-made inputs. {@link #start} runs
 * it on one named virtual thread and starts the sync and housekeeping tickers on a {@link
 * Scheduler} from the injected {@link Schedulers}, so a fake clock steps them.
 */
public final class SyncLoop implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(SyncLoop.class);

  /** Without an iteration for this long, the loop is reported unhealthy. */
  private static final Duration STUCK_AFTER = Duration.ofMinutes(1);

  private final SyncHandler handler;
  private final Pods pods;
  private final Select select;
  private final Ticks ticks;
  private final Time time;

  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicReference<Instant> lastIteration = new AtomicReference<>();
  private Scheduler tickers;
  private Thread thread;

  /**
   * What the loop reads of the desired pods.
   *
   * @param byUid finds a desired pod by UID (for PLEG events and probe results)
   * @param toSync pods due for their periodic resync or a retry (drains the work queue)
   * @param sourcesReady whether every source has sent its first set and this loop has handled it;
   *     until then housekeeping does not run, so nothing is killed for being absent from a source
   *     that has not spoken yet, or whose pods wait in the channel
   */
  public record Pods(
      Function<String, Optional<Pod>> byUid,
      Supplier<List<Pod>> toSync,
      SourcesReady sourcesReady) {
    public Pods {
      Records.requireNonNull(Pods.class, byUid, toSync, sourcesReady);
    }
  }

  /**
   * The sync and housekeeping ticks: the channels of the select they go into, and their periods.
   */
  public record Ticks(
      Select.Channel<Instant> sync,
      Select.Channel<Instant> housekeeping,
      Duration syncPeriod,
      Duration housekeepingPeriod) {
    public Ticks {
      Records.requireNonNull(Ticks.class, sync, housekeeping, syncPeriod, housekeepingPeriod);
      if (!syncPeriod.isPositive()) {
        throw new IllegalArgumentException("the sync period must be positive, got " + syncPeriod);
      }
      if (!housekeepingPeriod.isPositive()) {
        throw new IllegalArgumentException(
            "the housekeeping period must be positive, got " + housekeepingPeriod);
      }
    }
  }

  /**
   * @param select the loop's input channels, the ticks' among them
   * @param time its clock, and the schedulers that make the sync and housekeeping tickers
   */
  public SyncLoop(SyncHandler handler, Pods pods, Select select, Ticks ticks, Time time) {
    this.handler = handler;
    this.pods = pods;
    this.select = select;
    this.ticks = ticks;
    this.time = time;
  }

  /** Handles one input; called from the loop's thread, or from tests. */
  public void runOnce(LoopInput input) {
    lastIteration.set(time.clock().instant());
    switch (input) {
      case LoopInput.Config c -> dispatch(c.update());
      case LoopInput.Pleg p -> {
        PodLifecycleEvent e = p.event();
        if (!(e instanceof PodLifecycleEvent.ContainerRemoved)) {
          pods.byUid()
              .apply(e.podUid())
              .ifPresentOrElse(
                  pod -> {
                    log.debug("SyncLoop (PLEG): {} for pod {}", e, pod.getMetadata().getName());
                    handler.handlePodSyncs(List.of(pod));
                  },
                  () -> log.debug("SyncLoop (PLEG): {} for a pod that is not desired", e));
        }
        if (e instanceof PodLifecycleEvent.ContainerDied d) {
          handler.cleanUpContainersInPod(d.podUid(), d.containerId());
        }
      }
      case LoopInput.Probe p -> {
        switch (p.event()) {
          case ProberEvent.ResultChange c ->
              pods.byUid()
                  .apply(c.podUid())
                  .ifPresent(
                      pod -> {
                        log.debug(
                            "SyncLoop (PROBE): {} probe of {}/{} is now {}",
                            c.type(),
                            pod.getMetadata().getName(),
                            c.containerName(),
                            c.result());
                        handler.handlePodSyncs(List.of(pod));
                      });
        }
      }
      case LoopInput.SyncTick t -> {
        List<Pod> due = pods.toSync().get();
        if (!due.isEmpty()) {
          log.debug("SyncLoop (SYNC): {} pods", due.size());
          handler.handlePodSyncs(due);
        }
      }
      case LoopInput.HousekeepingTick h -> {
        if (!pods.sourcesReady().check()) {
          log.debug("SyncLoop (housekeeping): skipped, not every source's pods are handled");
        } else {
          handler.handlePodCleanups();
        }
      }
    }
  }

  private void dispatch(PodUpdate u) {
    log.info(
        "SyncLoop {}, {}: {}",
        u.op(),
        u.source().annotation(),
        u.pods().stream().map(PodConfig::fullName).toList());
    switch (u.op()) {
      case ADD -> handler.handlePodAdditions(u.pods());
      case UPDATE, DELETE -> handler.handlePodUpdates(u.pods());
      case REMOVE -> handler.handlePodRemoves(u.pods());
      case RECONCILE -> handler.handlePodReconcile(u.pods());
    }
  }

  @Override
  public void start() {
    if (!running.compareAndSet(false, true)) {
      return;
    }
    Clock clock = time.clock();
    lastIteration.set(clock.instant());
    tickers = time.schedulers().create("sync-loop-ticker");
    // A full tick channel drops the tick, as a Go ticker does: the loop is behind anyway.
    Duration sync = ticks.syncPeriod();
    tickers.atFixedRate(sync, sync, () -> ticks.sync().offer(clock.instant()));
    Duration housekeeping = ticks.housekeepingPeriod();
    tickers.atFixedRate(
        housekeeping, housekeeping, () -> ticks.housekeeping().offer(clock.instant()));
    thread = Thread.ofVirtual().name("sync-loop").start(this::run);
  }

  private void run() {
    log.info("SyncLoop: started");
    while (running.get()) {
      try {
        select.next(Duration.ofSeconds(1)).ifPresent(this::runOnce);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        // A handler bug must not end the loop: log it and take the next input.
        log.error("SyncLoop: iteration failed", e);
      }
    }
    log.info("SyncLoop: stopped");
  }

  @Override
  public void stop() {
    if (!running.compareAndSet(true, false)) {
      return;
    }
    tickers.close();
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public Health healthy() {
    Instant last = lastIteration.get();
    if (!running.get() || last == null) {
      return Health.failing("sync loop is not running");
    }
    Duration age = Duration.between(last, time.clock().instant());
    if (age.compareTo(STUCK_AFTER) > 0) {
      return Health.failing("sync loop has not iterated for " + age.toSeconds() + "s");
    }
    return Health.OK;
  }
}
