package io.jkubelet.agent.prober;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link ProbeWorker} knows of its probe and the container it follows, and the decisions
 * of upstream's {@code worker.doProbe} ({@code pkg/kubelet/prober/worker.go}, v1.20) around an
 * attempt: before it, whether this period probes, waits or stops the worker ({@link #next}); after
 * it, counting the result and publishing it to the {@link ResultsManager} once it crosses its
 * threshold ({@link #conclude}). A new container starts over with the probe type's initial result;
 * a failed liveness or startup probe holds until the container is replaced.
 *
 * <p>Not thread-safe: the worker's lock guards it, and is not held while the attempt runs.
 */
final class ProbeState {
  /** The worker's logger: these lines were the worker's before its state was split from it. */
  private static final Logger log = LoggerFactory.getLogger(ProbeWorker.class);

  /** What a period comes to, before any attempt. */
  sealed interface Step {
    /** Run an attempt against this target. */
    record Probe(ProbeTarget target) implements Step {}

    /** Nothing to run this period. */
    record Wait() implements Step {}

    /** The container ended for good: stop the worker. */
    record Stop() implements Step {}
  }

  private static final Step WAIT = new Step.Wait();
  private static final Step STOP = new Step.Stop();

  private final ProbeWorker.Context ctx;
  private final ResultRun run;
  private String containerId;
  private boolean onHold;
  private ProbeOutcome lastOutcome;

  ProbeState(ProbeWorker.Context ctx) {
    this.ctx = Objects.requireNonNull(ctx, "ctx");
    this.run = new ResultRun(ctx.settings());
  }

  /** Follows {@code containerId} from a known result, published at once. */
  void seed(String containerId, ProbeResult result) {
    this.containerId = containerId;
    run.seed(result);
    publish(result);
  }

  /** Whether the state still follows the container an attempt ran against. */
  boolean follows(String attemptOn) {
    return attemptOn.equals(containerId);
  }

  /** The container followed; null before the first. */
  String containerId() {
    return containerId;
  }

  /** The outcome of the latest attempt concluded; null before the first. */
  ProbeOutcome lastOutcome() {
    return lastOutcome;
  }

  /** Forgets the published result, as upstream when a worker stops. */
  void forget() {
    if (containerId != null) {
      ctx.shared().results().remove(containerId, ctx.key().type());
    }
  }

  /**
   * What to do this period, as upstream's {@code doProbe} up to the attempt: follows the container
   * id, waits for the initial delay and for startup.
   *
   * @param snap the container as the pod status shows it now; empty while it has no status
   */
  Step next(Optional<ContainerSnapshot> snap) {
    if (snap.isEmpty()) {
      return WAIT; // no status yet
    }
    ContainerSnapshot c = snap.get();
    if (c.terminal() && !c.running()) {
      if (containerId != null) {
        publish(ProbeResult.FAILURE);
      }
      return STOP;
    }
    if (c.containerId() == null || c.containerId().isEmpty()) {
      return WAIT;
    }
    if (!c.containerId().equals(containerId)) {
      follow(c.containerId());
    }
    if (onHold) {
      return WAIT; // a failed liveness or startup probe waits for a new container
    }
    if (!c.running()) {
      publish(ProbeResult.FAILURE);
      return WAIT;
    }
    Instant now = ctx.shared().clock().instant();
    if (c.startedAt() != null
        && Duration.between(c.startedAt(), now).compareTo(ctx.settings().initialDelay()) < 0) {
      return WAIT;
    }
    if (ctx.key().type() == ProbeType.STARTUP ? c.started() : !c.started()) {
      return WAIT; // startup is done for a startup probe; not yet for the others
    }
    ctx.stats().attempted(now);
    return new Step.Probe(new ProbeTarget(c.podIp(), containerId, ctx.settings().timeout()));
  }

  /** A new container: the old one's state goes, as if its worker were replaced. */
  private void follow(String newId) {
    if (containerId != null) {
      ctx.shared().results().remove(containerId, ctx.key().type());
    }
    containerId = newId;
    publish(ctx.key().type().initialResult());
    onHold = false;
    run.reset();
  }

  /** Counts the attempt's result and publishes once a threshold is crossed. */
  void conclude(ProbeOutcome outcome) {
    lastOutcome = outcome;
    ProbeResult result = outcome.result();
    ctx.stats().concluded(result);
    if (result == ProbeResult.UNKNOWN) {
      log.debug("Prober {} attempt inconclusive: {}", ctx.key(), outcome.output());
      return; // as upstream with a prober error: throw the result away
    }
    if (result == ProbeResult.FAILURE) {
      log.debug("Prober {} attempt failed: {}", ctx.key(), outcome.output());
    } else {
      log.debug("Prober {} attempt succeeded", ctx.key());
    }
    if (!run.add(result)) {
      return;
    }
    if (publish(result)) {
      log.info("Prober {} result {} ({})", ctx.key(), result, outcome.output().strip());
    }
    if (ctx.key().type() != ProbeType.READINESS && result == ProbeResult.FAILURE) {
      onHold = true;
      run.clear();
    }
  }

  /** Sets the current container's result; whether it changed. */
  private boolean publish(ProbeResult result) {
    return ctx.shared()
        .results()
        .set(ctx.key().podUid(), ctx.key().containerName(), containerId, ctx.key().type(), result);
  }
}
