package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
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
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory {@link Runtime}, in the manner of the kubelet's {@code FakeRuntime}: it records
 * every call, keeps containers as plain records ({@link FakeContainer}), and lets a test make
 * containers exit, images disappear and calls fail. Thread-safe: every method is synchronized, and
 * its parts by job are guarded by this object's monitor, so that one lock keeps the contract's
 * cross-call rules (a name conflict, a removed sandbox's containers). The unit tests use it, and
 * hollow nodes ({@code io.jkubelet.agent.hollow}) run their pods on it ({@link #hollow}).
 *
 * <p>It honours the runtime contract ({@code RuntimeContract} in the tests) as {@code
 * DockerRuntime} does (see {@code FakeRuntimeContractTest}): names and labels as dockershim's,
 * unknown ids, name conflicts, the exec output cap and timeout. A command's exec result comes from
 * {@link #onExec}; a hook that steps the fake clock beyond the exec's timeout makes the exec time
 * out.
 *
 * <p>Each call is recorded here and carried out by the part for its job: {@link FakeContainers}
 * (the container table and the event watch), {@link FakeImages}, {@link FakeLogs} and {@link
 * FakeStreams}; the tests' controls stand beside them.
 */
public class FakeRuntime implements Runtime {
  private final Clock clock;
  private final FakeContainers containers;
  private final FakeImages images;
  private final FakeLogs logs;
  private final FakeStreams streams;
  private final List<String> calls = new ArrayList<>();

  /** Whether calls are recorded ({@link #calls()}); a hollow node's are not: they would grow. */
  private boolean recording = true;

  private final Map<String, RuntimeError> failNext = new HashMap<>();

  private boolean down;

  /** Runs during every stop, e.g. to step a fake clock as a slow runtime would take time. */
  public synchronized void onStop(Runnable r) {
    containers.onStop = r;
  }

  /** The most exec output kept, as {@code DockerRuntime} keeps: 10 KiB. */
  public static final int MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

  public FakeRuntime(Clock clock, String... presentImages) {
    this.clock = clock;
    this.images = new FakeImages(List.of(presentImages));
    this.logs = new FakeLogs(this, clock);
    this.containers = new FakeContainers(this, clock, logs);
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
    containers.exit(id, exitCode, reason);
  }

  public synchronized List<FakeContainer> all() {
    return containers.all();
  }

  /** The containers (not sandboxes) of the pod with that spec name, newest last. */
  public synchronized List<FakeContainer> named(String podUid, String containerName) {
    return containers.all().stream()
        .filter(f -> podUid.equals(f.labels.get(Labels.POD_UID)))
        .filter(f -> containerName.equals(f.labels.get(Labels.CONTAINER_NAME)))
        .toList();
  }

  public synchronized List<FakeContainer> running() {
    return containers.all().stream().filter(f -> f.state == ContainerState.RUNNING).toList();
  }

  /** Adds a container that jkubelet did not create (no pod labels). */
  public synchronized String addForeign(String name) {
    return containers.addForeign(name);
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
    return containers.found(containerId);
  }

  /** Whether the container exists and runs; with the lock held. */
  boolean runs(String containerId) {
    return containers.runs(containerId);
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
    return containers.summaries();
  }

  @Override
  public synchronized PodStatus podStatus(PodRef pod) {
    call("podStatus", pod.uid());
    return containers.statusOf(pod, id -> true);
  }

  @Override
  public synchronized PodStatus podStatus(PodRef pod, List<String> containerIds) {
    call("podStatus", pod.uid());
    return containers.statusOf(pod, containerIds::contains);
  }

  @Override
  public synchronized String runPodSandbox(SandboxConfig config) {
    call("runPodSandbox", config.containerName());
    return containers.runSandbox(config);
  }

  @Override
  public synchronized void stopPodSandbox(String sandboxId, Duration grace) {
    stopContainer(sandboxId, grace);
  }

  @Override
  public synchronized String sandboxNetNs(String sandboxId) {
    call("sandboxNetNs", sandboxId);
    return containers.sandboxNetNs(sandboxId);
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
    return containers.create(sandboxId, config);
  }

  @Override
  public synchronized void startContainer(String containerId) {
    call("startContainer", containerId);
    containers.start(containerId);
  }

  @Override
  public synchronized void stopContainer(String containerId, Duration grace) {
    call("stopContainer", containerId);
    containers.stop(containerId, grace);
  }

  @Override
  public synchronized void removeContainer(String containerId) {
    call("removeContainer", containerId);
    containers.remove(containerId);
  }

  /**
   * As Docker's event stream: {@code onChange} is called after each container that starts, dies
   * (stopped, exited or killed) or is removed, on the thread that changed it and with this
   * runtime's lock held, so it must only hand the news on (the PLEG requests a relist).
   */
  @Override
  public AutoCloseable watchContainerEvents(Runnable onChange) {
    return containers.watch(onChange);
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
