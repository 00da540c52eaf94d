package io.jkubelet.agent.nodeshutdown;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.cm.OomScoreAdj;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Durations;
import io.jkubelet.config.ShutdownSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NodeShutdownManager} of a node with a grace period: upstream's {@code
 * nodeshutdown_manager_linux.go}. Logind's signal arrives on the connection's thread and is handed
 * to the manager's own thread ({@code node-shutdown}), which stops the pods and lets the lock go.
 *
 * <p>Thread-safety: {@code shuttingDown} is volatile (read by the node's status and admission);
 * {@code lock} and {@code logind} are written by {@link #start}, {@link #stop} and the manager's
 * thread, under {@code this}.
 */
final class GracefulShutdown implements NodeShutdownManager {
  private static final Logger log = LoggerFactory.getLogger(GracefulShutdown.class);

  /** Upstream's drop-in name. */
  static final String DROP_IN = "99-kubelet.conf";

  /** How often, and how long apart, logind's delay is read again after its reload. */
  private static final int RELOAD_READS = 10;

  private static final Duration RELOAD_WAIT = Duration.ofMillis(200);

  private final Options options;
  private final Pods pods;
  private final Supplier<Logind> connect;
  private final Time time;
  private volatile boolean shuttingDown;
  private volatile String failure;
  private Logind logind;
  private Logind.InhibitLock lock;
  private ExecutorService thread;

  GracefulShutdown(Options options, Pods pods, Supplier<Logind> connect, Time time) {
    this.options = options;
    this.pods = pods;
    this.connect = connect;
    this.time = time;
  }

  /**
   * Connects to logind, raises its delay when it is below the grace period, takes the lock and
   * listens for the shutdown. A failure is logged and reported by {@link #healthy()}, and the agent
   * goes on, as upstream's: the shutdown manager is not critical.
   */
  @Override
  public synchronized void start() {
    if (thread != null) {
      return;
    }
    thread = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("node-shutdown").factory());
    try {
      logind = connect.get();
      ensureInhibitDelay();
      lock = logind.inhibitShutdown();
      logind.monitorShutdown(this::onPrepareForShutdown);
      failure = null;
      log.info(
          "Shutdown manager: holding a delay lock of logind; pods stop within {} on shutdown,"
              + " critical ones within the last {}",
          Durations.format(options.settings().shutdownGracePeriod()),
          Durations.format(options.settings().shutdownGracePeriodCriticalPods()));
    } catch (LogindException | InterruptedException | IOException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      failure = e.getMessage();
      log.error("Failed to start node shutdown manager: {}", e.getMessage());
      releaseLock();
    }
  }

  @Override
  public synchronized void stop() {
    if (thread == null) {
      return;
    }
    thread.shutdownNow();
    thread = null;
    releaseLock();
    if (logind != null) {
      logind.close();
      logind = null;
    }
  }

  @Override
  public Health healthy() {
    String f = failure;
    return f == null ? Health.OK : Health.failing("node shutdown manager: " + f);
  }

  @Override
  public Optional<String> shutdownStatus() {
    return shuttingDown ? Optional.of(SHUTTING_DOWN) : Optional.empty();
  }

  @Override
  public Optional<PodAdmitter.Refusal> admit(Pod pod) {
    return shuttingDown
        ? Optional.of(new PodAdmitter.Refusal(NOT_ADMITTED_REASON, NOT_ADMITTED_MESSAGE))
        : Optional.empty();
  }

  @Override
  public String toString() {
    return "node shutdown manager";
  }

  /**
   * Upstream's check of {@code InhibitDelayMaxUSec}: when it is below the grace period, the drop-in
   * {@code 99-kubelet.conf} raises it and logind reads its configuration again.
   */
  private void ensureInhibitDelay() throws IOException, InterruptedException {
    Duration requested = options.settings().shutdownGracePeriod();
    Duration current = logind.inhibitDelayMax();
    if (requested.compareTo(current) <= 0) {
      return;
    }
    Path dropIn = writeDropIn(options.logindConfDir(), requested);
    log.info(
        "Shutdown manager: logind's InhibitDelayMaxSec is {}s, below shutdownGracePeriod; wrote {}"
            + " and reloading logind",
        current.toSeconds(),
        dropIn);
    logind.reloadConfig();
    // logind reads its files on SIGHUP, after the call returns.
    for (int i = 0; i < RELOAD_READS && current.compareTo(requested) < 0; i++) {
      time.sleeper().sleep(RELOAD_WAIT);
      current = logind.inhibitDelayMax();
    }
    if (current.compareTo(requested) < 0) {
      throw new LogindException(
          "node shutdown manager was unable to update logind InhibitDelayMaxSec to "
              + requested.toSeconds()
              + "s (ShutdownGracePeriod), current value of InhibitDelayMaxSec ("
              + current.toSeconds()
              + "s) is less than requested ShutdownGracePeriod");
    }
  }

  /** Upstream's {@code OverrideInhibitDelay}: the drop-in, with upstream's text. */
  static Path writeDropIn(Path dir, Duration inhibitDelayMax) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(DROP_IN);
    Files.writeString(
        file,
        "# Kubelet logind override\n[Login]\nInhibitDelayMaxSec="
            + Math.round(inhibitDelayMax.toMillis() / 1000.0)
            + "\n");
    return file;
  }

  /** On the connection's thread: hands the event to the manager's. */
  private void onPrepareForShutdown(boolean active) {
    log.info("Shutdown manager detected new shutdown event, isNodeShuttingDownNow: {}", active);
    shuttingDown = active;
    ExecutorService t;
    synchronized (this) {
      t = thread;
    }
    if (t == null) {
      return;
    }
    try {
      t.execute(active ? this::processShutdownEvent : this::acquireLock);
    } catch (RejectedExecutionException e) {
      log.debug("Shutdown manager: stopping, event dropped");
    }
  }

  private synchronized void acquireLock() {
    if (lock == null && logind != null) {
      try {
        lock = logind.inhibitShutdown();
      } catch (LogindException e) {
        log.error("Shutdown manager: failed taking the inhibitor lock again: {}", e.getMessage());
      }
    }
  }

  private synchronized void releaseLock() {
    if (lock != null) {
      lock.close();
      lock = null;
    }
  }

  /**
   * Stops the pods, critical ones last, awaits their statuses at the API server, and lets the lock
   * go; all within the grace period, measured from now. Runs on the manager's thread.
   */
  void processShutdownEvent() {
    ShutdownSettings s = options.settings();
    Instant start = time.clock().instant();
    Instant deadline = start.plus(s.shutdownGracePeriod());
    List<Pod> all = pods.active();
    List<Pod> normal = new ArrayList<>();
    List<Pod> critical = new ArrayList<>();
    for (Pod p : all) {
      (OomScoreAdj.critical(p) ? critical : normal).add(p);
    }
    log.info(
        "Shutdown manager processing shutdown event: {} pods, then {} critical pods",
        normal.size(),
        critical.size());
    try {
      killAll(normal, s.nonCriticalPods());
      await("pods", normal, start.plus(s.nonCriticalPods()), true);
      killAll(critical, s.shutdownGracePeriodCriticalPods());
      await("critical pods", critical, deadline, true);
      await("pod statuses", all, deadline, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("Shutdown manager: interrupted while stopping pods");
    } finally {
      releaseLock();
    }
    log.info("Shutdown manager completed processing shutdown event, node will shutdown shortly");
  }

  private void killAll(List<Pod> list, Duration period) {
    for (Pod pod : list) {
      long grace = period.toSeconds();
      Long own = pod.getSpec() == null ? null : pod.getSpec().getTerminationGracePeriodSeconds();
      if (own != null && own <= grace) {
        grace = own;
      }
      log.info(
          "Shutdown manager killing pod {}/{} with gracePeriod: {} seconds",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          grace);
      PodStatus current = pods.status(pod).orElse(null);
      PodStatus failed =
          (current == null ? new PodStatusBuilder() : new PodStatusBuilder(current))
              .withPhase("Failed")
              .withReason(REASON)
              .withMessage(MESSAGE)
              .build();
      try {
        pods.kill(pod, failed, Duration.ofSeconds(grace));
      } catch (RuntimeException e) {
        log.warn(
            "Shutdown manager failed killing pod {}: {}",
            pod.getMetadata().getName(),
            e.toString());
      }
    }
  }

  /** Waits for the pods' kills (or statuses) until {@code until} on the injected clock. */
  private void await(String what, List<Pod> list, Instant until, boolean stopped)
      throws InterruptedException {
    if (list.isEmpty()) {
      return;
    }
    Duration left = Duration.between(time.clock().instant(), until);
    if (left.isNegative()) {
      left = Duration.ZERO;
    }
    boolean done = stopped ? pods.awaitStopped(list, left) : pods.awaitStatusesWritten(list, left);
    if (done) {
      log.info("Shutdown manager: {} done ({} pods)", what, list.size());
    } else {
      log.warn("Shutdown manager: {} did not complete in {}", what, Durations.format(left));
    }
  }
}
