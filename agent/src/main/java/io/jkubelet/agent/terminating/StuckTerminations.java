package io.jkubelet.agent.terminating;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.kuberuntime.PreStopsRunning;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.config.Records;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Watches the pods being deleted: one still not gone {@link Options#stuckAfter} after its
 * deletion's grace period gets a Warning {@code TerminationStuck} that names what holds it,
 * repeated at a doubling interval (from {@code stuckAfter}, at most {@link #MAX_REPEAT}) while it
 * stays; each repeat patches the same event (count and message, through the correlator's {@code
 * jkubelet.io/progress-of}). What holds it, in this order: a container that has not exited (PID and
 * state), a preStop hook that runs, a volume that will not tear down (the last error), a runtime
 * call that has not returned. A deleted pod whose grace period runs normally is gone before and
 * never gets the event.
 *
 * <p>The deletion counts from when jkubelet first saw it (not the API server's deletionTimestamp,
 * so that no clock skew and no restart of jkubelet makes a pod stuck at once). The checks read only
 * state in memory (the pods, the PLEG's cache, the calls in flight, the hooks running, the volumes'
 * last tear-down): a hung runtime never blocks them.
 */
public interface StuckTerminations extends Lifecycle {

  /** The longest interval between two reports of one stuck pod. */
  Duration MAX_REPEAT = Duration.ofMinutes(30);

  /** How often the pods being deleted are looked at. */
  Duration CHECK_PERIOD = Duration.ofSeconds(1);

  /**
   * A runtime call younger than this is not named: the relist's inspects come and go all the time.
   */
  Duration CALL_MIN_AGE = Duration.ofSeconds(5);

  /**
   * What a stuck pod shows on {@code /pods}, as the annotation {@code
   * jkubelet.io/termination-stuck}.
   *
   * @param deletionSeenAt when jkubelet saw the deletion, RFC 3339
   * @param gracePeriodSeconds the deletion's grace period
   * @param terminatingSeconds how long since the deletion was seen
   * @param reports how many {@code TerminationStuck} events were sent so far
   * @param heldBy what holds it now; empty when nothing on the node does any more
   * @param message the event's message, as it would be now
   */
  record Report(
      String deletionSeenAt,
      long gracePeriodSeconds,
      long terminatingSeconds,
      int reports,
      List<Holder> heldBy,
      String message) {}

  /**
   * Runs one check of every pod being deleted; the scheduler calls it every {@link #CHECK_PERIOD}.
   */
  void runOnce();

  /** The pod's report when it is stuck; empty otherwise. */
  Optional<Report> report(String podUid);

  /**
   * What the checks read.
   *
   * @param pods the desired pods (those being deleted carry a deletionTimestamp)
   * @param runtimeStatus the runtime's last status of a pod by UID (the PLEG's cache), never a call
   * @param calls the runtime calls in flight
   * @param preStops the preStop hooks running
   * @param volumes the volumes' last failed tear-down, by pod UID
   */
  record Sources(
      Supplier<? extends Collection<Pod>> pods,
      Function<String, Optional<PodStatus>> runtimeStatus,
      CallsInFlight calls,
      PreStopsRunning preStops,
      Function<String, Optional<VolumeManager.TeardownFailure>> volumes) {
    public Sources {
      Records.requireNonNull(Sources.class, pods, runtimeStatus, calls, preStops, volumes);
    }
  }

  /**
   * @param stuckAfter how long after the grace period a pod still there is stuck ({@code
   *     terminationStuckAfter}); also the first interval between reports
   */
  record Options(Duration stuckAfter) {
    public Options {
      Records.requireNonNull(Options.class, stuckAfter);
      if (stuckAfter.isNegative() || stuckAfter.isZero()) {
        throw new IllegalArgumentException("terminationStuckAfter must be positive: " + stuckAfter);
      }
    }
  }

  /** Builds the watch; {@code start} makes its scheduler ({@code termination-watch}). */
  static StuckTerminations create(
      Sources sources, Options options, Time time, EventRecorder recorder) {
    return new TerminationWatch(sources, options, time, recorder);
  }
}
