package io.jkubelet.agent.hung;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The runtime as the PLEG and the pod workers call it: every call that the engine should answer
 * promptly is bounded (upstream's {@code --runtime-request-timeout}, {@code requestTimeout}; a stop
 * by its grace period plus that; a sandbox's start by twice that, as upstream's remote runtime),
 * and so is a pod's inspect, container by container: with the shorter {@code inspectTimeout} for a
 * container whose last known status can stand in, with {@code requestTimeout} for one never
 * inspected.
 *
 * <p>A container whose inspect does not return in time keeps its last known status, with a message
 * that says which call hangs and for how long, while the pod's other containers are inspected as
 * usual: the relist goes on for everything else. The call stays outstanding until the engine
 * answers; meanwhile it is not sent again, and a second inspect joins it ({@link Deadlines}). The
 * {@link Listener} hears when a call hangs (a Warning event on its pod) and when it returns (the
 * PLEG inspects the pod again). A container never inspected before has no last known status: its
 * inspect waits up to {@code requestTimeout}, and then its pod's inspect fails rather than leave it
 * out (a worker would create it again). On 29 November, with 30 pods created at once on a busy
 * 2-core machine, Docker took 10 to 27 s to inspect a new sandbox: with the short bound for those
 * too, the pods' syncs failed and waited out the workers' 10 s error backoff.
 *
 * <p>Streams (exec, attach, logs, port-forward, events) and image pulls are not bounded here: they
 * have deadlines of their own.
 *
 * <p>Thread-safe. The pod inspect that keeps last known states is {@link PodInspects}'.
 */
public final class GuardedRuntime extends ForwardingRuntime implements Lifecycle {
  /** The longest a container's inspect may take before it counts as hung. */
  public static final Duration INSPECT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * The bounds.
   *
   * @param requestTimeout upstream's {@code runtimeRequestTimeout}
   * @param inspectTimeout a container's inspect, and the engine's version (its ping)
   */
  public record Options(Duration requestTimeout, Duration inspectTimeout) {
    public Options {
      Objects.requireNonNull(requestTimeout, "requestTimeout");
      Objects.requireNonNull(inspectTimeout, "inspectTimeout");
      if (!requestTimeout.isPositive() || !inspectTimeout.isPositive()) {
        throw new IllegalArgumentException("runtime call bounds must be positive");
      }
    }

    /** {@code requestTimeout}, and {@link #INSPECT_TIMEOUT} or less for the inspects. */
    public static Options of(Duration requestTimeout) {
      return new Options(
          requestTimeout,
          requestTimeout.compareTo(INSPECT_TIMEOUT) < 0 ? requestTimeout : INSPECT_TIMEOUT);
    }
  }

  /** Hears of hung calls. Called on the scheduler's or the call's thread: must be quick. */
  public interface Listener {
    /** A call passed its bound. */
    void hung(HungCall call);

    /** A hung call returned at last, after {@code took}. */
    void returned(HungCall call, Duration took);

    Listener NONE =
        new Listener() {
          @Override
          public void hung(HungCall call) {}

          @Override
          public void returned(HungCall call, Duration took) {}
        };
  }

  private final Options options;
  private final Clock clock;
  private final Schedulers schedulers;
  private final Deadlines deadlines;
  private final PodInspects inspects;
  private volatile Scheduler scheduler;

  private GuardedRuntime(
      Runtime delegate, Options options, Clock clock, Schedulers schedulers, Listener listener) {
    super(delegate);
    this.options = options;
    this.clock = clock;
    this.schedulers = schedulers;
    this.deadlines =
        new Deadlines(
            clock,
            new Deadlines.Listener() {
              @Override
              public void hung(HungCall call) {
                listener.hung(call);
              }

              @Override
              public void returned(HungCall call, Duration took) {
                listener.returned(call, took);
              }
            });
    this.inspects = new PodInspects(delegate, deadlines, options);
  }

  /** Bounds {@code delegate}'s calls once started; until then they go through unbounded. */
  public static GuardedRuntime create(
      Runtime delegate, Options options, Clock clock, Schedulers schedulers, Listener listener) {
    return new GuardedRuntime(delegate, options, clock, schedulers, listener);
  }

  @Override
  public void start() {
    if (scheduler == null) {
      scheduler = schedulers.create("runtime-deadlines");
    }
  }

  @Override
  public void stop() {
    Scheduler s = scheduler;
    if (s != null) {
      s.close();
    }
  }

  /** Healthy; the calls that hang now are in {@link #hung()}. */
  @Override
  public Health healthy() {
    return Health.OK;
  }

  /** The calls that hang now. */
  public Set<HungCall> hung() {
    return deadlines.hung();
  }

  /** The calls about the pod with this UID that hang now, as {@code /pods} shows them. */
  public List<HungCall.Report> hungOf(String podUid) {
    Set<HungCall> all = deadlines.hung();
    if (all.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    return all.stream()
        .filter(c -> c.pod() != null && c.pod().uid().equals(podUid))
        .sorted(java.util.Comparator.comparing(HungCall::since))
        .map(c -> c.report(now))
        .toList();
  }

  @Override
  public String toString() {
    return "runtime call deadlines";
  }

  // The engine itself.

  @Override
  public String version() {
    return call("Version", "", options.inspectTimeout(), delegate::version);
  }

  @Override
  public List<ContainerSummary> listContainers() {
    List<ContainerSummary> listed =
        call("ListContainers", "", options.requestTimeout(), delegate::listContainers);
    inspects.listed(listed);
    return listed;
  }

  // A pod's inspect, container by container.

  @Override
  public PodStatus podStatus(PodRef pod) {
    return podStatus(pod, ContainerSummary.ids(listContainers(pod)));
  }

  @Override
  public List<ContainerSummary> listContainers(PodRef pod) {
    return call(
        "ListContainers",
        "",
        "pod " + pod.namespace() + "/" + pod.name(),
        options.requestTimeout(),
        () -> delegate.listContainers(pod));
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return inspects.podStatus(scheduler, pod, containerIds);
  }

  // The workers' calls.

  @Override
  public String runPodSandbox(SandboxConfig config) {
    return call(
        "RunPodSandbox",
        "",
        "pod " + config.pod().namespace() + "/" + config.pod().name(),
        options.requestTimeout().multipliedBy(2),
        () -> delegate.runPodSandbox(config));
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    run(
        "StopPodSandbox",
        sandboxId,
        withGrace(grace),
        () -> delegate.stopPodSandbox(sandboxId, grace));
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    run(
        "RemovePodSandbox",
        sandboxId,
        options.requestTimeout(),
        () -> delegate.removePodSandbox(sandboxId));
  }

  @Override
  public String sandboxNetNs(String sandboxId) {
    return call(
        "PodSandboxStatus",
        sandboxId,
        options.requestTimeout(),
        () -> delegate.sandboxNetNs(sandboxId));
  }

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    return call(
        "CreateContainer",
        "",
        "container \"" + config.name() + "\" in sandbox " + shortId(sandboxId),
        options.requestTimeout(),
        () -> delegate.createContainer(sandboxId, config));
  }

  @Override
  public void startContainer(String containerId) {
    run(
        "StartContainer",
        containerId,
        options.requestTimeout(),
        () -> delegate.startContainer(containerId));
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    run(
        "StopContainer",
        containerId,
        withGrace(grace),
        () -> delegate.stopContainer(containerId, grace));
  }

  @Override
  public void removeContainer(String containerId) {
    run(
        "RemoveContainer",
        containerId,
        options.requestTimeout(),
        () -> delegate.removeContainer(containerId));
  }

  @Override
  public boolean imagePresent(String image) {
    return call(
        "ImageStatus",
        "",
        "image \"" + image + "\"",
        options.requestTimeout(),
        () -> delegate.imagePresent(image));
  }

  @Override
  public String imageUser(String image) {
    return call(
        "ImageStatus",
        "",
        "image \"" + image + "\"",
        options.requestTimeout(),
        () -> delegate.imageUser(image));
  }

  @Override
  public List<ImageSummary> listImages() {
    return call("ListImages", "", options.requestTimeout(), delegate::listImages);
  }

  private static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }

  /** As upstream's StopContainer: the grace period plus the request timeout. */
  private Duration withGrace(Duration grace) {
    return options
        .requestTimeout()
        .plus(grace == null || grace.isNegative() ? Duration.ZERO : grace);
  }

  private void run(String name, String id, Duration bound, Runnable fn) {
    call(
        name,
        id,
        bound,
        () -> {
          fn.run();
          return null;
        });
  }

  private <T> T call(String name, String id, Duration bound, Supplier<T> fn) {
    return call(name, id, "", bound, fn);
  }

  private <T> T call(String name, String id, String subject, Duration bound, Supplier<T> fn) {
    return Deadlines.await(
        deadlines.submit(
            scheduler, new Deadlines.Call(name, id, subject), bound, inspects::describe, fn));
  }
}
