package io.jkubelet.agent.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The runtime calls that have not returned yet, each with what it is about (a container, a sandbox
 * or a pod) and when it began: one decorator, so that no caller keeps its own account. The stuck
 * terminations' reports ({@code terminating}) ask it which call holds a pod.
 *
 * <p>The calls tracked are those a pod's life waits on: {@code PodStatus} (the pod's inspect, about
 * its UID), {@code CreateContainer} (about the sandbox), {@code StartContainer}, {@code
 * StopContainer}, {@code RemoveContainer}, {@code ExecSync} (a hook or an exec probe), about the
 * container, and {@code StopPodSandbox}, {@code RemovePodSandbox}, about the sandbox. Names are the
 * CRI's.
 *
 * <p>Thread-safe: the calls in flight are a concurrent map, an entry added before the call and
 * removed in {@code finally}.
 */
public final class CallsInFlight extends ForwardingRuntime {

  /**
   * One call in flight.
   *
   * @param method the CRI's name of the call, e.g. {@code StopContainer}
   * @param target the container or sandbox id, or the pod's UID for {@code PodStatus}
   * @param since when it began, by the injected clock
   */
  public record Call(String method, String target, Instant since) {
    public Call {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(since, "since");
    }

    /** How long it has been running at {@code now}. */
    public Duration age(Instant now) {
      return Duration.between(since, now);
    }
  }

  private final Clock clock;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Call> inFlight = new ConcurrentHashMap<>();

  public CallsInFlight(Runtime delegate, Clock clock) {
    super(Objects.requireNonNull(delegate, "delegate"));
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The calls in flight about any of these targets, the oldest first. */
  public List<Call> about(Collection<String> targets) {
    if (inFlight.isEmpty() || targets.isEmpty()) {
      return List.of();
    }
    List<Call> out = new ArrayList<>();
    for (Call c : inFlight.values()) {
      if (targets.contains(c.target())) {
        out.add(c);
      }
    }
    out.sort(Comparator.comparing(Call::since));
    return out;
  }

  /** How many calls are in flight. */
  public int size() {
    return inFlight.size();
  }

  private <T> T track(String method, String target, Supplier<T> call) {
    long id = ids.incrementAndGet();
    inFlight.put(id, new Call(method, target == null ? "" : target, clock.instant()));
    try {
      return call.get();
    } finally {
      inFlight.remove(id);
    }
  }

  private void run(String method, String target, Runnable call) {
    track(
        method,
        target,
        () -> {
          call.run();
          return null;
        });
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    return track("PodStatus", pod.uid(), () -> delegate.podStatus(pod));
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return track("PodStatus", pod.uid(), () -> delegate.podStatus(pod, containerIds));
  }

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    return track("CreateContainer", sandboxId, () -> delegate.createContainer(sandboxId, config));
  }

  @Override
  public void startContainer(String containerId) {
    run("StartContainer", containerId, () -> delegate.startContainer(containerId));
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    run("StopContainer", containerId, () -> delegate.stopContainer(containerId, grace));
  }

  @Override
  public void removeContainer(String containerId) {
    run("RemoveContainer", containerId, () -> delegate.removeContainer(containerId));
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    return track("ExecSync", containerId, () -> delegate.exec(containerId, command, timeout));
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    run("StopPodSandbox", sandboxId, () -> delegate.stopPodSandbox(sandboxId, grace));
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    run("RemovePodSandbox", sandboxId, () -> delegate.removePodSandbox(sandboxId));
  }
}
