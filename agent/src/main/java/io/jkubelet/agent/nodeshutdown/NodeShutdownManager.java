package io.jkubelet.agent.nodeshutdown;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ShutdownSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Graceful node shutdown, as upstream's {@code nodeshutdown.Manager}: while started it holds a
 * logind delay inhibitor lock; on {@code PrepareForShutdown(true)} the node reports NotReady
 * ({@link #shutdownStatus}), new pods are refused ({@link #admit}), the pods that are not critical
 * are stopped within {@code shutdownGracePeriod - shutdownGracePeriodCriticalPods}, then the
 * critical ones within {@code shutdownGracePeriodCriticalPods}, each Failed with upstream's reason
 * and message; their final statuses are awaited at the API server within what is left of the grace
 * period, and only then is the lock let go. {@code PrepareForShutdown(false)} (a cancelled
 * shutdown) makes the node Ready again and takes the lock again.
 *
 * <p>Beyond upstream v1.20: the critical pods start stopping as soon as the others are stopped
 * (upstream waits out their whole period first), and the lock waits for the statuses to reach the
 * API server (upstream lets it go when the kills return: kubernetes#110755, #112443).
 *
 * <p>Implementations are thread-safe.
 */
public interface NodeShutdownManager extends Lifecycle {
  /** Upstream's pod status reason for a pod stopped by a shutdown (v1.20). */
  String REASON = "Shutdown";

  /** Upstream's pod status message for a pod stopped by a shutdown (v1.20), as it is written. */
  String MESSAGE = "Node is shutting, evicting pods";

  /** Upstream's {@code ShutdownStatus} error while shutting down: the Ready condition's message. */
  String SHUTTING_DOWN = "node is shutting down";

  /** Upstream's (v1.21+) admission refusal reason while shutting down. */
  String NOT_ADMITTED_REASON = "NodeShutdown";

  /**
   * Upstream's (v1.21+) admission refusal message. NOTE: upstream's {@code rejectPod} prefixes it
   * with "Pod " as {@link PodAdmitter} does, so the status says "Pod Pod was rejected…", as it does
   * upstream.
   */
  String NOT_ADMITTED_MESSAGE = "Pod was rejected as the node is shutting down.";

  /** The manager of a node without graceful shutdown: never shutting down. */
  NodeShutdownManager NONE = new NoShutdown();

  /** Upstream's {@code ShutdownStatus}: {@link #SHUTTING_DOWN} while a shutdown is under way. */
  Optional<String> shutdownStatus();

  /** The admit handler: refuses every pod while a shutdown is under way. */
  Optional<PodAdmitter.Refusal> admit(Pod pod);

  /**
   * The node's pods as the manager sees and stops them.
   *
   * <p>Called on the manager's own thread.
   */
  interface Pods {
    /** The pods admitted and not finished. */
    List<Pod> active();

    /** The pod's latest status, or empty. */
    Optional<PodStatus> status(Pod pod);

    /** Sets the pod's status to {@code failed} and has its worker kill it within {@code grace}. */
    void kill(Pod pod, PodStatus failed, Duration grace);

    /** Waits until these pods' kills are done; false when {@code timeout} passed first. */
    boolean awaitStopped(Collection<Pod> pods, Duration timeout) throws InterruptedException;

    /**
     * Waits until the API server holds these pods' latest statuses; false when {@code timeout}
     * passed first.
     */
    boolean awaitStatusesWritten(Collection<Pod> pods, Duration timeout)
        throws InterruptedException;
  }

  /**
   * @param settings the grace periods
   * @param logindConfDir where logind's drop-in goes ({@code /etc/systemd/logind.conf.d})
   */
  record Options(ShutdownSettings settings, Path logindConfDir) {
    public static final Path LOGIND_CONF_DIR = Path.of("/etc/systemd/logind.conf.d");

    public static Options of(ShutdownSettings settings) {
      return new Options(settings, LOGIND_CONF_DIR);
    }
  }

  /**
   * The manager: {@link #NONE} when {@code enabled} is false or the grace period is zero; else one
   * that connects to logind through {@code logind} when started.
   */
  static NodeShutdownManager create(
      boolean enabled, Options options, Pods pods, Supplier<Logind> logind, Time time) {
    if (!enabled || !options.settings().enabled()) {
      return NONE;
    }
    return new GracefulShutdown(options, pods, logind, time);
  }
}
