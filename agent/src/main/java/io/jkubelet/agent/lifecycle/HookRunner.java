package io.jkubelet.agent.lifecycle;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.prober.ExecRunner;
import io.jkubelet.agent.prober.ProbeHttp;
import io.jkubelet.agent.prober.ProbeOutcome;
import io.jkubelet.agent.prober.ProbeResult;
import io.jkubelet.agent.prober.ProbeTarget;
import io.jkubelet.agent.prober.Probers;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.GoQuote;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.config.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a container's lifecycle hook, as upstream's {@code HandlerRunner} ({@code
 * pkg/kubelet/lifecycle/handlers.go}): an {@code exec} command in the container, an {@code httpGet}
 * to the pod IP (or the hook's host), or a {@code sleep} as in newer Kubernetes. The caller decides
 * what a failure means: a failed postStart kills the container, a failed preStop is reported and
 * the kill goes on.
 *
 * <p>Unlike upstream v1.20, an HTTP hook fails on a status outside 200–399 (as probes do and newer
 * kubelets do), every hook is bounded by a timeout, and a bad definition (empty command, bad port)
 * is a failure with a message rather than a silent no-op.
 *
 * <p>Thread-safe: pod workers run hooks of different pods at once.
 */
public final class HookRunner {
  private static final Logger log = LoggerFactory.getLogger(HookRunner.class);

  private final ExecRunner exec;
  private final Supplier<ProbeHttp> http;
  private final Sleeper sleeper;

  /**
   * @param http the client for HTTP hooks, asked for on the first HTTP hook only (building one
   *     starts a thread)
   */
  public HookRunner(ExecRunner exec, Supplier<ProbeHttp> http, Sleeper sleeper) {
    this.exec = Objects.requireNonNull(exec, "exec");
    this.http = Objects.requireNonNull(http, "http");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /**
   * Runs the hook and waits for it at most {@code timeout}.
   *
   * @param podIp the pod's IP, the default host of an HTTP hook
   * @return empty when the hook succeeded, else the message of the {@code FailedPostStartHook} or
   *     {@code FailedPreStopHook} event, in upstream's words
   */
  public Optional<String> run(
      Pod pod,
      Container container,
      String containerId,
      String podIp,
      LifecycleHandler hook,
      Duration timeout) {
    if (hook.getExec() != null) {
      return runExec(pod, container, containerId, hook, timeout);
    }
    if (hook.getHttpGet() != null) {
      return runHttp(pod, container, containerId, podIp, hook, timeout);
    }
    if (hook.getSleep() != null) {
      return runSleep(pod, container, hook, timeout);
    }
    return Optional.of(
        String.format(
            "Lifecycle hook for Container %s in Pod %s failed - error: %s",
            GoQuote.quote(container.getName()),
            GoQuote.quote(podName(pod)),
            hook.getTcpSocket() != null
                ? "tcpSocket is not supported as a lifecycle hook"
                : "no hook handler (exec, httpGet or sleep) given"));
  }

  private Optional<String> runExec(
      Pod pod, Container c, String containerId, LifecycleHandler hook, Duration timeout) {
    List<String> command =
        hook.getExec().getCommand() == null ? List.of() : hook.getExec().getCommand();
    String error;
    String output = "";
    if (command.isEmpty()) {
      error = "exec.command must not be empty";
    } else {
      try {
        ExecResult r = exec.exec(containerId, command, timeout);
        output = r.output();
        if (r.timedOut()) {
          error =
              String.format(
                  "command '%s' did not complete within %s",
                  String.join(" ", command), Durations.format(timeout));
        } else if (r.exitCode() != 0) {
          error =
              String.format("command '%s' exited with %d", String.join(" ", command), r.exitCode());
        } else {
          return Optional.empty();
        }
      } catch (RuntimeException e) {
        error = e.getMessage() == null ? e.toString() : e.getMessage();
      }
    }
    String msg =
        String.format(
            "Exec lifecycle hook (%s) for Container %s in Pod %s failed - error: %s, message: %s",
            "[" + String.join(" ", command) + "]",
            GoQuote.quote(c.getName()),
            GoQuote.quote(podName(pod)),
            error,
            GoQuote.quote(output));
    log.info("{}", msg);
    return Optional.of(msg);
  }

  private Optional<String> runHttp(
      Pod pod,
      Container c,
      String containerId,
      String podIp,
      LifecycleHandler hook,
      Duration timeout) {
    String error;
    try {
      ProbeOutcome o =
          Probers.httpGet(hook.getHttpGet(), c, http.get())
              .probe(new ProbeTarget(podIp, containerId, timeout));
      if (o.result() == ProbeResult.SUCCESS) {
        return Optional.empty();
      }
      error = o.output();
    } catch (IllegalArgumentException e) {
      error = e.getMessage();
    }
    String msg =
        String.format(
            "Http lifecycle hook (%s) for Container %s in Pod %s failed - error: %s, message: %s",
            hook.getHttpGet().getPath() == null ? "" : hook.getHttpGet().getPath(),
            GoQuote.quote(c.getName()),
            GoQuote.quote(podName(pod)),
            error,
            GoQuote.quote(""));
    log.info("{}", msg);
    return Optional.of(msg);
  }

  private Optional<String> runSleep(Pod pod, Container c, LifecycleHandler hook, Duration timeout) {
    Long seconds = hook.getSleep().getSeconds();
    if (seconds == null || seconds < 0) {
      return Optional.of(
          String.format(
              "Sleep lifecycle hook (%s) for Container %s in Pod %s failed - error: %s",
              seconds,
              GoQuote.quote(c.getName()),
              GoQuote.quote(podName(pod)),
              "sleep.seconds must be a non-negative number"));
    }
    Duration d = Duration.ofSeconds(seconds);
    try {
      sleeper.sleep(d.compareTo(timeout) < 0 ? d : timeout);
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of(
          String.format(
              "Sleep lifecycle hook (%d) for Container %s in Pod %s failed - error: interrupted",
              seconds, GoQuote.quote(c.getName()), GoQuote.quote(podName(pod))));
    }
  }

  /** Upstream's {@code format.Pod}: {@code name_namespace(uid)}. */
  static String podName(Pod pod) {
    return pod.getMetadata().getName()
        + "_"
        + pod.getMetadata().getNamespace()
        + "("
        + pod.getMetadata().getUid()
        + ")";
  }
}
