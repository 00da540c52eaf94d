package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The container table of a {@link FakeRuntime}: sandboxes and containers as {@link FakeContainer}
 * records, their life (create, start, stop, exit, remove) as Docker's runtime lives it, and the
 * event watch told of each start, death and removal. Guarded by the fake runtime's monitor ({@code
 * lock}), which every caller holds; the watchers are told under it.
 */
final class FakeContainers {
  private final Object lock;
  private final Clock clock;
  private final FakeLogs logs;
  private int ids;
  private final Map<String, FakeContainer> containers = new LinkedHashMap<>();

  /** Told of every container that starts, dies or goes away ({@link #watch}). */
  private final List<Runnable> watchers = new CopyOnWriteArrayList<>();

  /** Runs during every stop ({@link FakeRuntime#onStop}). */
  Runnable onStop = () -> {};

  FakeContainers(Object lock, Clock clock, FakeLogs logs) {
    this.lock = lock;
    this.clock = clock;
    this.logs = logs;
  }

  List<FakeContainer> all() {
    return List.copyOf(containers.values());
  }

  /** The container, or {@code NOT_FOUND}. */
  FakeContainer found(String containerId) {
    FakeContainer c = containers.get(containerId);
    if (c == null) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId);
    }
    return c;
  }

  /** Whether the container exists and runs. */
  boolean runs(String containerId) {
    FakeContainer c = containers.get(containerId);
    return c != null && c.state == ContainerState.RUNNING;
  }

  /** See {@link FakeRuntime#addForeign}. */
  String addForeign(String name) {
    String id = nextId();
    FakeContainer f = FakeContainer.foreign(id, name, clock.instant());
    f.state = ContainerState.RUNNING;
    containers.put(id, f);
    return id;
  }

  /** See {@link FakeRuntime#exit}. */
  void exit(String id, int exitCode, String reason) {
    FakeContainer f = containers.get(id);
    f.state = ContainerState.EXITED;
    f.exitCode = exitCode;
    f.reason = reason;
    f.finishedAt = clock.instant();
    ended(id);
  }

  List<ContainerSummary> summaries() {
    return containers.values().stream()
        .map(FakeContainer::summary)
        .flatMap(Optional::stream)
        .toList();
  }

  /** The pod's sandboxes and containers among those {@code listed}. */
  PodStatus statusOf(PodRef pod, Predicate<String> listed) {
    List<SandboxStatus> sandboxes = new ArrayList<>();
    List<ContainerStatus> cs = new ArrayList<>();
    for (FakeContainer f : containers.values()) {
      if (!pod.uid().equals(f.labels.get(Labels.POD_UID)) || !listed.test(f.id)) {
        continue;
      }
      if (f.sandbox) {
        sandboxes.add(f.sandboxStatus());
      } else {
        cs.add(f.status());
      }
    }
    return new PodStatus(pod, sandboxes, cs);
  }

  String runSandbox(SandboxConfig config) {
    // As Docker's runtime: a leftover container of the same name is removed first.
    containers.values().removeIf(f -> f.name.equals(config.containerName()));
    String id = nextId();
    FakeContainer f = FakeContainer.sandbox(id, config, clock.instant());
    f.state = ContainerState.RUNNING;
    f.startedAt = clock.instant();
    containers.put(id, f);
    changed();
    return id;
  }

  /** A running sandbox's namespace path names no real process: a fake pid past the kernel's. */
  String sandboxNetNs(String sandboxId) {
    FakeContainer f = containers.get(sandboxId);
    if (f == null || f.state != ContainerState.RUNNING) {
      return "";
    }
    return "/proc/" + (4_194_304 + Integer.parseInt(sandboxId.substring(56), 16)) + "/ns/net";
  }

  String create(String sandboxId, ContainerConfig config) {
    for (FakeContainer f : containers.values()) {
      if (f.name.equals(config.name())) {
        throw new RuntimeError(
            RuntimeError.Kind.CREATE,
            "Conflict. The container name \"/"
                + config.name()
                + "\" is already in use by container \""
                + f.id
                + "\".");
      }
    }
    // As Docker's runtime: the sandbox's id and the container type join the labels.
    Map<String, String> labels = new HashMap<>(config.labels());
    labels.put(Labels.SANDBOX_ID, sandboxId);
    labels.putIfAbsent(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);
    String id = nextId();
    containers.put(id, FakeContainer.container(id, config, labels, clock.instant()));
    return id;
  }

  void start(String containerId) {
    FakeContainer f = found(containerId);
    if (f.state == ContainerState.RUNNING) {
      return; // as Docker: starting a running container changes nothing
    }
    f.state = ContainerState.RUNNING;
    f.finishedAt = null;
    f.exitCode = 0;
    f.reason = "";
    f.startedAt = clock.instant();
    changed();
  }

  void stop(String containerId, Duration grace) {
    FakeContainer f = containers.get(containerId);
    if (f == null || f.state != ContainerState.RUNNING) {
      return;
    }
    f.lastStopGrace = grace;
    onStop.run();
    f.state = ContainerState.EXITED;
    f.exitCode = 143;
    f.finishedAt = clock.instant();
    ended(containerId);
  }

  void remove(String containerId) {
    if (containers.remove(containerId) != null) {
      changed();
    }
    lock.notifyAll(); // ends attaches
    logs.forget(containerId);
  }

  /** See {@link FakeRuntime#watchContainerEvents}. */
  AutoCloseable watch(Runnable onChange) {
    watchers.add(onChange);
    return () -> watchers.remove(onChange);
  }

  /** A container stopped running: its attaches and log follows end, and the watch hears it. */
  private void ended(String containerId) {
    lock.notifyAll(); // ends attaches
    logs.end(containerId);
    changed();
  }

  private void changed() {
    for (Runnable w : watchers) {
      w.run();
    }
  }

  private String nextId() {
    return String.format("%064x", ++ids);
  }
}
