package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.LogEntrySink;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory {@link Runtime}, in the manner of the kubelet's {@code FakeRuntime}: it records
 * every call, keeps containers as plain records ({@link FakeContainer}), and lets a test make
 * containers exit, images disappear and calls fail. Thread-safe: every method is synchronized, and
 * its parts by job ({@link FakeImages}, {@link FakeLogs}, {@link FakeStreams}: exec and the
 * streams) are guarded by this object's monitor, so that one lock keeps the contract's cross-call
 * rules (a name conflict, a removed sandbox's containers). The unit tests use it, and hollow nodes
 * ({@code io.jkubelet.agent.hollow}) run their pods on it ({@link #hollow}).
 *
 * <p>It honours the runtime contract ({@code RuntimeContract} in the tests) as {@code
 * DockerRuntime} does (see {@code FakeRuntimeContractTest}): names and labels as dockershim's,
 * unknown ids, name conflicts, the exec output cap and timeout. A command's exec result comes from
 * {@link #onExec}; a hook that steps the fake clock beyond the exec's timeout makes the exec time
 * out.
 *
 * <p>Over the house's 400 lines by the {@link Runtime}'s face alone: each call is recorded here and
 * carried out by the part for its job; the tests' controls stand beside them, and the event watch
 * (Docker's start, die and destroy) is told from the calls that change a container, under the same
 * lock. The next cut: the container table (create, start, stop, remove, exit and their events) into
 * a part of its own, as {@link FakeImages} holds the images.
 */
public class FakeRuntime implements Runtime {
  private final Clock clock;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<String, FakeContainer> containers = new LinkedHashMap<>();
  private final FakeImages images;
  private final FakeLogs logs;
  private final FakeStreams streams;
  private final List<String> calls = new ArrayList<>();

  /** Whether calls are recorded ({@link #calls()}); a hollow node's are not: they would grow. */
  private boolean recording = true;

  private final Map<String, RuntimeError> failNext = new HashMap<>();

  /** Told of every container that starts, dies or goes away ({@link #watchContainerEvents}). */
  private final List<Runnable> watchers = new CopyOnWriteArrayList<>();

  private boolean down;
  private Runnable onStop = () -> {};

  /** Runs during every stop, e.g. to step a fake clock as a slow runtime would take time. */
  public synchronized void onStop(Runnable r) {
    onStop = r;
  }

  /** The most exec output kept, as {@code DockerRuntime} keeps: 10 KiB. */
  public static final int MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

  public FakeRuntime(Clock clock, String... presentImages) {
    this.clock = clock;
    this.images = new FakeImages(List.of(presentImages));
    this.logs = new FakeLogs(this, clock);
    this.streams = new FakeStreams(this, clock);
  }

  /**
   * The runtime of a hollow node: every image pulls (anonymously, at once), and no call is
   * recorded, so that its memory follows its containers only. Containers run until they are
   * stopped; an exec answers exit 0.
   */
  public static FakeRuntime hollow(Clock clock) {
    FakeRuntime r = new FakeRuntime(clock);
    synchronized (r) {
      r.recording = false;
      r.images.pullsAnyImage = true;
    }
    return r;
  }

  // --- test controls ---

  /** The calls made so far, e.g. "createContainer k8s_app_...". */
  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  public synchronized void clearCalls() {
    calls.clear();
  }

  /** Makes the next call of that method fail with the error. */
  public synchronized void failNext(String method, RuntimeError error) {
    failNext.put(method, error);
  }

  /** Makes every call fail as if the engine were down. */
  public synchronized void setDown(boolean down) {
    this.down = down;
  }

  public synchronized void addImage(String image) {
    images.add(image);
  }

  /** Adds an image whose config names this user ({@code USER} of a Dockerfile). */
  public synchronized void addImage(String image, String user) {
    images.add(image, user);
  }

  /**
   * Puts an image in the fake registry: a pull presenting this credential's user name and password
   * ({@link RegistryAuth#NONE}: any pull) gets it; any other is refused as unauthorized.
   */
  public synchronized void addRegistryImage(String image, RegistryAuth required) {
    images.addToRegistry(image, required);
  }

  /** Makes a running container exit with the code (and reason, e.g. OOMKilled). */
  public synchronized void exit(String id, int exitCode, String reason) {
    FakeContainer f = containers.get(id);
    f.state = ContainerState.EXITED;
    f.exitCode = exitCode;
    f.reason = reason;
    f.finishedAt = clock.instant();
    notifyAll(); // ends attaches
    logs.end(id);
    changed();
  }

  public synchronized List<FakeContainer> all() {
    return List.copyOf(containers.values());
  }

  /** The containers (not sandboxes) of the pod with that spec name, newest last. */
  public synchronized List<FakeContainer> named(String podUid, String containerName) {
    return containers.values().stream()
        .filter(f -> podUid.equals(f.labels.get(Labels.POD_UID)))
        .filter(f -> containerName.equals(f.labels.get(Labels.CONTAINER_NAME)))
        .toList();
  }

  public synchronized List<FakeContainer> running() {
    return containers.values().stream().filter(f -> f.state == ContainerState.RUNNING).toList();
  }

  /** Adds a container that jkubelet did not create (no pod labels). */
  public synchronized String addForeign(String name) {
    String id = nextId();
    FakeContainer f = FakeContainer.foreign(id, name, clock.instant());
    f.state = ContainerState.RUNNING;
    containers.put(id, f);
    return id;
  }

  // --- Runtime ---

  /** Records the call, and fails it if the runtime is down or the test asked so. */
  void call(String method, String arg) {
    if (recording) {
      calls.add(method + " " + arg);
    }
    if (down) {
      throw new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "fake runtime is down");
    }
    RuntimeError e = failNext.remove(method);
    if (e != null) {
      throw e;
    }
  }

  /** The container, or {@code NOT_FOUND}; with the lock held. */
  FakeContainer found(String containerId) {
    FakeContainer c = containers.get(containerId);
    if (c == null) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId);
    }
    return c;
  }

  /** Whether the container exists and runs; with the lock held. */
  boolean runs(String containerId) {
    FakeContainer c = containers.get(containerId);
    return c != null && c.state == ContainerState.RUNNING;
  }

  private String nextId() {
    return String.format("%064x", ids.incrementAndGet());
  }

  @Override
  public String type() {
    return "fake";
  }

  @Override
  public synchronized String version() {
    call("version", "");
    return "0.0.1";
  }

  @Override
  public synchronized List<ContainerSummary> listContainers() {
    call("listContainers", "");
    return containers.values().stream()
        .map(FakeContainer::summary)
        .flatMap(Optional::stream)
        .toList();
  }

  @Override
  public synchronized PodStatus podStatus(PodRef pod) {
    call("podStatus", pod.uid());
    return statusOf(pod, id -> true);
  }

  @Override
  public synchronized PodStatus podStatus(PodRef pod, List<String> containerIds) {
    call("podStatus", pod.uid());
    return statusOf(pod, containerIds::contains);
  }

  private PodStatus statusOf(PodRef pod, java.util.function.Predicate<String> listed) {
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

  @Override
  public synchronized String runPodSandbox(SandboxConfig config) {
    call("runPodSandbox", config.containerName());
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

  @Override
  public synchronized void stopPodSandbox(String sandboxId, Duration grace) {
    stopContainer(sandboxId, grace);
  }

  /** A running sandbox's namespace path names no real process: a fake pid past the kernel's. */
  @Override
  public synchronized String sandboxNetNs(String sandboxId) {
    call("sandboxNetNs", sandboxId);
    FakeContainer f = containers.get(sandboxId);
    if (f == null || f.state != ContainerState.RUNNING) {
      return "";
    }
    return "/proc/" + (4_194_304 + Integer.parseInt(sandboxId.substring(56), 16)) + "/ns/net";
  }

  @Override
  public synchronized void removePodSandbox(String sandboxId) {
    removeContainer(sandboxId);
  }

  @Override
  public synchronized String createContainer(String sandboxId, ContainerConfig config) {
    call("createContainer", config.name());
    if (!images.present(config.image())) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such image: " + config.image());
    }
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

  @Override
  public synchronized void startContainer(String containerId) {
    call("startContainer", containerId);
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

  @Override
  public synchronized void stopContainer(String containerId, Duration grace) {
    call("stopContainer", containerId);
    FakeContainer f = containers.get(containerId);
    if (f == null || f.state != ContainerState.RUNNING) {
      return;
    }
    f.lastStopGrace = grace;
    onStop.run();
    f.state = ContainerState.EXITED;
    f.exitCode = 143;
    f.finishedAt = clock.instant();
    notifyAll(); // ends attaches
    logs.end(containerId);
    changed();
  }

  @Override
  public synchronized void removeContainer(String containerId) {
    call("removeContainer", containerId);
    if (containers.remove(containerId) != null) {
      changed();
    }
    notifyAll(); // ends attaches
    logs.forget(containerId);
  }

  /**
   * As Docker's event stream: {@code onChange} is called after each container that starts, dies
   * (stopped, exited or killed) or is removed, on the thread that changed it and with this
   * runtime's lock held, so it must only hand the news on (the PLEG requests a relist).
   */
  @Override
  public AutoCloseable watchContainerEvents(Runnable onChange) {
    watchers.add(onChange);
    return () -> watchers.remove(onChange);
  }

  private void changed() {
    for (Runnable w : watchers) {
      w.run();
    }
  }

  // --- logs, exec and streams ({@link FakeLogs}, {@link FakeStreams}) ---

  /**
   * The container writes an entry of output at the clock's time (as Docker stamps it): delivered to
   * the streams that follow it, and kept for later ones.
   */
  public void print(String containerId, String stream, String text) {
    logs.print(containerId, stream, text);
  }

  /** How many streams follow a container's output. */
  public synchronized int followers(String containerId) {
    return logs.followers(containerId);
  }

  /** Delivers on the caller's thread: the kept entries at or after {@code since}, then new ones. */
  @Override
  public AutoCloseable followLogEntries(
      String containerId, java.util.Optional<Instant> since, LogEntrySink sink) {
    return logs.follow(
        containerId,
        since,
        sink,
        () -> {
          call("followLogEntries", containerId);
          return found(containerId).state == ContainerState.RUNNING;
        });
  }

  /**
   * What {@link #exec} answers for a running container; by default exit 0. The output is capped at
   * {@link #MAX_EXEC_OUTPUT_BYTES}; a hook that steps the fake clock beyond the exec's timeout
   * makes it time out, keeping its output.
   */
  public synchronized void onExec(
      java.util.function.BiFunction<FakeContainer, List<String>, ExecResult> f) {
    streams.onExec(f);
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    return streams.exec(containerId, command, timeout);
  }

  /** What an interactive exec does in the fake: runs on its own thread, returns the exit code. */
  @FunctionalInterface
  public interface StreamProgram {
    int run(FakeContainer container, List<String> command, StreamIo io) throws Exception;
  }

  /** What a forwarded port does in the fake: serves one connection. */
  @FunctionalInterface
  public interface PortServer {
    void serve(java.io.InputStream in, java.io.OutputStream out) throws Exception;
  }

  /** The default exec program: {@code cat} copies stdin to stdout; anything else exits 0. */
  public static int cat(FakeContainer c, List<String> command, StreamIo io)
      throws java.io.IOException {
    if (command.get(0).equals("cat") && io.stdin() != null && io.stdout() != null) {
      io.stdin().transferTo(io.stdout());
    }
    return 0;
  }

  /** What {@link #execStream} runs; by default {@link #cat}. */
  public synchronized void onExecStream(StreamProgram p) {
    streams.onExecStream(p);
  }

  /** Makes {@code port} of every sandbox serve connections with the server; others refuse. */
  public synchronized void listen(int port, PortServer server) {
    streams.listen(port, server);
  }

  /** The streams (exec, attach, port-forward) that have not ended yet. */
  public synchronized int openStreams() {
    return streams.open();
  }

  /** The resizes asked for, as "containerId WxH". */
  public synchronized List<String> resizes() {
    return streams.resizes();
  }

  @Override
  public StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    return streams.execStream(containerId, command, io);
  }

  @Override
  public StreamHandle attach(String containerId, StreamIo io) {
    return streams.attach(containerId);
  }

  @Override
  public StreamHandle portForward(
      String sandboxId, int port, java.io.InputStream in, java.io.OutputStream out) {
    return streams.portForward(sandboxId, port, in, out);
  }

  // --- images ({@link FakeImages}) ---

  @Override
  public synchronized List<ImageSummary> listImages() {
    call("listImages", "");
    return images.list();
  }

  /** Fake images weigh a megabyte and a byte per character of their name, so sizes differ. */
  public static final long FAKE_IMAGE_BYTES = 1 << 20;

  @Override
  public synchronized String imageUser(String image) {
    call("imageUser", image);
    return images.user(image);
  }

  @Override
  public synchronized boolean imagePresent(String image) {
    call("imagePresent", image);
    return images.present(image);
  }

  /** Records {@code pullImage <image> as <user or "anonymous">}; never the password. */
  @Override
  public synchronized void pullImage(
      String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    call("pullImage", image + " as " + (auth.anonymous() ? "anonymous" : auth.username()));
    images.pull(image, auth);
  }
}
