package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.LogEntry;
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
import io.jkubelet.agent.runtime.TerminalSize;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory {@link Runtime}, in the manner of the kubelet's {@code FakeRuntime}: it records
 * every call, keeps containers as plain records, and lets a test make containers exit, images
 * disappear and calls fail. Thread-safe: every method is synchronized. The unit tests use it, and
 * hollow nodes ({@code io.jkubelet.agent.hollow}) run their pods on it ({@link #hollow}).
 *
 * <p>It honours the runtime contract ({@code RuntimeContract} in the tests) as {@code
 * DockerRuntime} does (see {@code FakeRuntimeContractTest}): names and labels as dockershim's,
 * unknown ids, name conflicts, the exec output cap and timeout. A command's exec result comes from
 * {@link #onExec}; a hook that steps the fake clock beyond the exec's timeout makes the exec time
 * out.
 *
 * <p>Why it is twice the house's 400 lines: it is the whole {@link Runtime} in one in-memory state
 * (sandboxes, containers, images, exec, logs), so that one lock and one record per container keep
 * the contract's cross-call rules (a name conflict, a removed sandbox's containers). The cut, when
 * it comes, is by job around that state: images and pulls, exec and streams, logs.
 */
public class FakeRuntime implements Runtime {
  private final Clock clock;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<String, Fake> containers = new LinkedHashMap<>();
  private final Set<String> images = new HashSet<>();
  private final Map<String, String> imageUsers = new HashMap<>();
  private final Map<String, RegistryAuth> registry = new HashMap<>();
  private final List<String> calls = new ArrayList<>();

  /** Whether calls are recorded ({@link #calls()}); a hollow node's are not: they would grow. */
  private boolean recording = true;

  /** Whether every image pulls, as kubemark's fake engine: a hollow node's. */
  private boolean pullsAnyImage;

  private final Map<String, RuntimeError> failNext = new HashMap<>();
  private boolean down;
  private final Map<String, List<LogEntry>> output = new HashMap<>();
  private final Map<String, List<LogEntrySink>> followers = new HashMap<>();
  private Runnable onStop = () -> {};
  private java.util.function.BiFunction<Fake, List<String>, ExecResult> onExec =
      (c, cmd) -> new ExecResult(0, "", false);

  /** Runs during every stop, e.g. to step a fake clock as a slow runtime would take time. */
  public synchronized void onStop(Runnable r) {
    onStop = r;
  }

  /** The most exec output kept, as {@code DockerRuntime} keeps: 10 KiB. */
  public static final int MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

  /** A container as the fake keeps it. */
  public static final class Fake {
    public final String id;
    public final String name;
    public final boolean sandbox;
    public final Map<String, String> labels;
    public final String image;
    public final ContainerConfig config;
    public final SandboxConfig sandboxConfig;
    public ContainerState state = ContainerState.CREATED;
    public final Instant createdAt;
    public Instant startedAt;
    public Instant finishedAt;
    public int exitCode;
    public String reason = "";
    public Duration lastStopGrace;

    /** Its main process while it runs, as {@code ContainerStatus.pid} reports it. */
    public long pid = 4242;

    public Fake(
        String id,
        String name,
        boolean sandbox,
        Map<String, String> labels,
        String image,
        ContainerConfig config,
        SandboxConfig sandboxConfig,
        Instant createdAt) {
      this.id = id;
      this.name = name;
      this.sandbox = sandbox;
      this.labels = Map.copyOf(labels);
      this.image = image;
      this.config = config;
      this.sandboxConfig = sandboxConfig;
      this.createdAt = createdAt;
    }
  }

  public FakeRuntime(Clock clock, String... presentImages) {
    this.clock = clock;
    images.addAll(List.of(presentImages));
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
      r.pullsAnyImage = true;
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
    images.add(image);
    imageUsers.put(image, user);
  }

  /** Makes a running container exit with the code (and reason, e.g. OOMKilled). */
  public synchronized void exit(String id, int exitCode, String reason) {
    Fake f = containers.get(id);
    f.state = ContainerState.EXITED;
    f.exitCode = exitCode;
    f.reason = reason;
    f.finishedAt = clock.instant();
    notifyAll(); // ends attaches
    endFollowers(id);
  }

  public synchronized List<Fake> all() {
    return List.copyOf(containers.values());
  }

  /** The containers (not sandboxes) of the pod with that spec name, newest last. */
  public synchronized List<Fake> named(String podUid, String containerName) {
    return containers.values().stream()
        .filter(f -> podUid.equals(f.labels.get(Labels.POD_UID)))
        .filter(f -> containerName.equals(f.labels.get(Labels.CONTAINER_NAME)))
        .toList();
  }

  public synchronized List<Fake> running() {
    return containers.values().stream().filter(f -> f.state == ContainerState.RUNNING).toList();
  }

  /** Adds a container that jkubelet did not create (no pod labels). */
  public synchronized String addForeign(String name) {
    String id = nextId();
    Fake f = new Fake(id, name, false, Map.of(), "other", null, null, clock.instant());
    f.state = ContainerState.RUNNING;
    containers.put(id, f);
    return id;
  }

  // --- Runtime ---

  private void call(String method, String arg) {
    if (recording) {
      calls.add(method + " " + arg);
    }
    if (down) {
      throw new RuntimeError(RuntimeError.Kind.UNAVAILABLE, "fake runtime is down", null);
    }
    RuntimeError e = failNext.remove(method);
    if (e != null) {
      throw e;
    }
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
    List<ContainerSummary> out = new ArrayList<>();
    for (Fake f : containers.values()) {
      Labels.podOf(f.labels)
          .ifPresent(
              pod ->
                  out.add(
                      new ContainerSummary(
                          f.id,
                          pod,
                          f.sandbox
                              ? Labels.POD_CONTAINER_NAME
                              : f.labels.getOrDefault(Labels.CONTAINER_NAME, ""),
                          f.sandbox,
                          f.state,
                          f.createdAt,
                          Labels.intLabel(f.labels, Labels.RESTART_COUNT, 0))));
    }
    return out;
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
    for (Fake f : containers.values()) {
      if (!pod.uid().equals(f.labels.get(Labels.POD_UID)) || !listed.test(f.id)) {
        continue;
      }
      if (f.sandbox) {
        boolean ready = f.state == ContainerState.RUNNING;
        sandboxes.add(
            SandboxStatus.of(
                f.id,
                Labels.trailingNumber(f.name),
                ready,
                ready
                        && !f.sandboxConfig.network().hostNetwork()
                        && !f.sandboxConfig.network().pluginNetwork()
                    ? "10.0.0." + (Integer.parseInt(f.id.substring(56), 16) % 250 + 2)
                    : "",
                f.createdAt,
                f.labels));
      } else {
        String reason = f.reason;
        if (f.state == ContainerState.EXITED && reason.isEmpty()) {
          reason = f.exitCode == 0 ? "Completed" : "Error";
        }
        cs.add(
            new ContainerStatus(
                f.id,
                f.labels.getOrDefault(Labels.CONTAINER_NAME, ""),
                f.labels.getOrDefault(Labels.SANDBOX_ID, ""),
                f.state,
                new ContainerStatus.Times(f.createdAt, f.startedAt, f.finishedAt),
                new ContainerStatus.Exit(f.exitCode, reason, ""),
                new ContainerStatus.Origin(
                    f.image,
                    "docker://sha256:" + Integer.toHexString(f.image.hashCode()),
                    f.labels.getOrDefault(Labels.CONTAINER_HASH, ""),
                    Labels.intLabel(f.labels, Labels.RESTART_COUNT, 0),
                    f.labels),
                f.state == ContainerState.RUNNING ? f.pid : 0));
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
    Fake f =
        new Fake(
            id,
            config.containerName(),
            true,
            config.labels(),
            config.image(),
            null,
            config,
            clock.instant());
    f.state = ContainerState.RUNNING;
    f.startedAt = clock.instant();
    containers.put(id, f);
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
    Fake f = containers.get(sandboxId);
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
    if (!images.contains(config.image())) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such image: " + config.image(), null);
    }
    for (Fake f : containers.values()) {
      if (f.name.equals(config.name())) {
        throw new RuntimeError(
            RuntimeError.Kind.CREATE,
            "Conflict. The container name \"/"
                + config.name()
                + "\" is already in use by container \""
                + f.id
                + "\".",
            null);
      }
    }
    // As Docker's runtime: the sandbox's id and the container type join the labels.
    Map<String, String> labels = new HashMap<>(config.labels());
    labels.put(Labels.SANDBOX_ID, sandboxId);
    labels.putIfAbsent(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);
    String id = nextId();
    containers.put(
        id,
        new Fake(id, config.name(), false, labels, config.image(), config, null, clock.instant()));
    return id;
  }

  @Override
  public synchronized void startContainer(String containerId) {
    call("startContainer", containerId);
    Fake f = containers.get(containerId);
    if (f == null) {
      throw new RuntimeError(
          RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId, null);
    }
    if (f.state == ContainerState.RUNNING) {
      return; // as Docker: starting a running container changes nothing
    }
    f.state = ContainerState.RUNNING;
    f.finishedAt = null;
    f.exitCode = 0;
    f.reason = "";
    f.startedAt = clock.instant();
  }

  @Override
  public synchronized void stopContainer(String containerId, Duration grace) {
    call("stopContainer", containerId);
    Fake f = containers.get(containerId);
    if (f == null || f.state != ContainerState.RUNNING) {
      return;
    }
    f.lastStopGrace = grace;
    onStop.run();
    f.state = ContainerState.EXITED;
    f.exitCode = 143;
    f.finishedAt = clock.instant();
    notifyAll(); // ends attaches
    endFollowers(containerId);
  }

  @Override
  public synchronized void removeContainer(String containerId) {
    call("removeContainer", containerId);
    containers.remove(containerId);
    output.remove(containerId);
    notifyAll(); // ends attaches
    endFollowers(containerId);
  }

  /**
   * The container writes an entry of output at the clock's time (as Docker stamps it): delivered to
   * the streams that follow it, and kept for later ones.
   */
  public void print(String containerId, String stream, String text) {
    LogEntry e =
        new LogEntry(
            clock.instant(), stream, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    List<LogEntrySink> to;
    synchronized (this) {
      output.computeIfAbsent(containerId, k -> new ArrayList<>()).add(e);
      to = List.copyOf(followers.getOrDefault(containerId, List.of()));
    }
    to.forEach(s -> s.entry(e));
  }

  /** How many streams follow a container's output. */
  public synchronized int followers(String containerId) {
    return followers.getOrDefault(containerId, List.of()).size();
  }

  private void endFollowers(String containerId) {
    List<LogEntrySink> ended = followers.remove(containerId);
    if (ended != null) {
      ended.forEach(s -> s.end(null));
    }
  }

  /** Delivers on the caller's thread: the kept entries at or after {@code since}, then new ones. */
  @Override
  public AutoCloseable followLogEntries(
      String containerId, java.util.Optional<Instant> since, LogEntrySink sink) {
    List<LogEntry> past;
    boolean running;
    synchronized (this) {
      call("followLogEntries", containerId);
      Fake f = containers.get(containerId);
      if (f == null) {
        throw new RuntimeError(
            RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId, null);
      }
      past = List.copyOf(output.getOrDefault(containerId, List.of()));
      running = f.state == ContainerState.RUNNING;
      if (running) {
        followers.computeIfAbsent(containerId, k -> new ArrayList<>()).add(sink);
      }
    }
    past.stream()
        .filter(e -> since.isEmpty() || !e.time().isBefore(since.get()))
        .forEach(sink::entry);
    if (!running) {
      sink.end(null);
    }
    return () -> {
      synchronized (this) {
        List<LogEntrySink> l = followers.get(containerId);
        if (l != null) {
          l.remove(sink);
        }
      }
    };
  }

  /**
   * What {@link #exec} answers for a running container; by default exit 0. The output is capped at
   * {@link #MAX_EXEC_OUTPUT_BYTES}; a hook that steps the fake clock beyond the exec's timeout
   * makes it time out, keeping its output.
   */
  public synchronized void onExec(java.util.function.BiFunction<Fake, List<String>, ExecResult> f) {
    onExec = f;
  }

  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    java.util.function.BiFunction<Fake, List<String>, ExecResult> f;
    Fake c;
    synchronized (this) {
      call("exec", containerId + " " + String.join(" ", command));
      c = containers.get(containerId);
      if (c == null) {
        throw new RuntimeError(
            RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId, null);
      }
      if (c.state != ContainerState.RUNNING) {
        throw new RuntimeError(
            RuntimeError.Kind.OTHER, "container " + containerId + " is not running", null);
      }
      f = onExec;
    }
    Instant start = clock.instant();
    ExecResult result =
        f.apply(c, command); // outside the lock: a hook may wait, as a real one would
    String output = capped(result.output());
    boolean bounded = timeout != null && timeout.isPositive();
    if (result.timedOut()
        || bounded && Duration.between(start, clock.instant()).compareTo(timeout) > 0) {
      return ExecResult.timeout(output);
    }
    return new ExecResult(result.exitCode(), output, false);
  }

  private static String capped(String output) {
    byte[] bytes = output.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    if (bytes.length <= MAX_EXEC_OUTPUT_BYTES) {
      return output;
    }
    return new String(bytes, 0, MAX_EXEC_OUTPUT_BYTES, java.nio.charset.StandardCharsets.UTF_8);
  }

  // --- streams ---

  /** What an interactive exec does in the fake: runs on its own thread, returns the exit code. */
  @FunctionalInterface
  public interface StreamProgram {
    int run(Fake container, List<String> command, StreamIo io) throws Exception;
  }

  /** What a forwarded port does in the fake: serves one connection. */
  @FunctionalInterface
  public interface PortServer {
    void serve(java.io.InputStream in, java.io.OutputStream out) throws Exception;
  }

  private StreamProgram onExecStream = FakeRuntime::cat;
  private final Map<Integer, PortServer> ports = new HashMap<>();
  private final Set<FakeStream> openStreams = new HashSet<>();
  private final List<String> resizes = new ArrayList<>();

  /** The default exec program: {@code cat} copies stdin to stdout; anything else exits 0. */
  public static int cat(Fake c, List<String> command, StreamIo io) throws java.io.IOException {
    if (command.get(0).equals("cat") && io.stdin() != null && io.stdout() != null) {
      io.stdin().transferTo(io.stdout());
    }
    return 0;
  }

  /** What {@link #execStream} runs; by default {@link #cat}. */
  public synchronized void onExecStream(StreamProgram p) {
    onExecStream = p;
  }

  /** Makes {@code port} of every sandbox serve connections with the server; others refuse. */
  public synchronized void listen(int port, PortServer server) {
    ports.put(port, server);
  }

  /** The streams (exec, attach, port-forward) that have not ended yet. */
  public synchronized int openStreams() {
    return openStreams.size();
  }

  /** The resizes asked for, as "containerId WxH". */
  public synchronized List<String> resizes() {
    return List.copyOf(resizes);
  }

  private Fake running(String containerId) {
    Fake c = containers.get(containerId);
    if (c == null) {
      throw new RuntimeError(
          RuntimeError.Kind.NOT_FOUND, "No such container: " + containerId, null);
    }
    if (c.state != ContainerState.RUNNING) {
      throw new RuntimeError(
          RuntimeError.Kind.OTHER, "container not running (" + containerId + ")", null);
    }
    return c;
  }

  @Override
  public StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    Fake c;
    StreamProgram p;
    synchronized (this) {
      call("execStream", containerId + " " + String.join(" ", command));
      c = running(containerId);
      p = onExecStream;
    }
    return new FakeStream(containerId, () -> p.run(c, command, io)).start();
  }

  @Override
  public StreamHandle attach(String containerId, StreamIo io) {
    synchronized (this) {
      call("attach", containerId);
      running(containerId);
    }
    return new FakeStream(
            containerId,
            () -> {
              synchronized (this) {
                while (containers.containsKey(containerId)
                    && containers.get(containerId).state == ContainerState.RUNNING) {
                  wait();
                }
              }
              return StreamHandle.NO_EXIT_CODE;
            })
        .start();
  }

  @Override
  public StreamHandle portForward(
      String sandboxId, int port, java.io.InputStream in, java.io.OutputStream out) {
    PortServer server;
    synchronized (this) {
      call("portForward", sandboxId + " " + port);
      running(sandboxId);
      server = ports.get(port);
    }
    return new FakeStream(
            sandboxId,
            () -> {
              if (server == null) {
                throw new RuntimeError(
                    RuntimeError.Kind.OTHER,
                    "connect to 127.0.0.1:"
                        + port
                        + " in the pod's network namespace:"
                        + " Connection refused",
                    null);
              }
              server.serve(in, out);
              return StreamHandle.NO_EXIT_CODE;
            })
        .start();
  }

  /**
   * A fake stream: the program on a virtual thread; close interrupts it, and a client's stream that
   * fails (an IOException) aborts it, as a runtime's does.
   */
  private final class FakeStream implements StreamHandle {
    private final String containerId;
    private final java.util.concurrent.Callable<Integer> body;
    private final java.util.concurrent.CompletableFuture<Integer> result =
        new java.util.concurrent.CompletableFuture<>();
    private volatile Thread thread;
    private volatile boolean aborted;

    FakeStream(String containerId, java.util.concurrent.Callable<Integer> body) {
      this.containerId = containerId;
      this.body = body;
    }

    FakeStream start() {
      synchronized (FakeRuntime.this) {
        openStreams.add(this);
      }
      thread =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      result.complete(body.call());
                    } catch (java.io.IOException e) {
                      // the client's stream failed: it went away, and the stream is aborted
                      aborted = true;
                      result.complete(NO_EXIT_CODE);
                    } catch (Throwable t) {
                      result.completeExceptionally(t);
                    } finally {
                      synchronized (FakeRuntime.this) {
                        openStreams.remove(this);
                      }
                    }
                  });
      return this;
    }

    @Override
    public int await() throws InterruptedException {
      try {
        int code = result.get();
        return aborted ? NO_EXIT_CODE : code;
      } catch (java.util.concurrent.ExecutionException e) {
        if (aborted) {
          return NO_EXIT_CODE;
        }
        throw e.getCause() instanceof RuntimeError r
            ? r
            : new RuntimeError(RuntimeError.Kind.OTHER, String.valueOf(e.getCause()), e.getCause());
      }
    }

    @Override
    public void resize(TerminalSize size) {
      synchronized (FakeRuntime.this) {
        resizes.add(containerId + " " + size.width() + "x" + size.height());
      }
    }

    @Override
    public void close() {
      if (!result.isDone()) {
        aborted = true;
        thread.interrupt();
      }
    }
  }

  @Override
  public synchronized List<ImageSummary> listImages() {
    call("listImages", "");
    return images.stream()
        .sorted()
        .map(i -> new ImageSummary(List.of(i), FAKE_IMAGE_BYTES + i.length()))
        .toList();
  }

  /** Fake images weigh a megabyte and a byte per character of their name, so sizes differ. */
  public static final long FAKE_IMAGE_BYTES = 1 << 20;

  @Override
  public synchronized String imageUser(String image) {
    call("imageUser", image);
    if (!images.contains(image)) {
      throw new RuntimeError(RuntimeError.Kind.NOT_FOUND, "No such image: " + image, null);
    }
    return imageUsers.getOrDefault(image, "");
  }

  @Override
  public synchronized boolean imagePresent(String image) {
    call("imagePresent", image);
    return images.contains(image);
  }

  /**
   * Puts an image in the fake registry: a pull presenting this credential's user name and password
   * ({@link RegistryAuth#NONE}: any pull) gets it; any other is refused as unauthorized.
   */
  public synchronized void addRegistryImage(String image, RegistryAuth required) {
    registry.put(image, required);
  }

  /** Records {@code pullImage <image> as <user or "anonymous">}; never the password. */
  @Override
  public synchronized void pullImage(
      String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    call("pullImage", image + " as " + (auth.anonymous() ? "anonymous" : auth.username()));
    if (pullsAnyImage) {
      images.add(image);
      return;
    }
    RegistryAuth required = registry.get(image);
    if (required == null) {
      throw new RuntimeError(RuntimeError.Kind.IMAGE_PULL, "fake registry has no " + image, null);
    }
    if (!required.anonymous()
        && !(required.username().equals(auth.username())
            && required.password().equals(auth.password()))) {
      throw new RuntimeError(
          RuntimeError.Kind.IMAGE_PULL,
          "Error response from daemon: unauthorized: authentication required",
          null);
    }
    images.add(image);
  }
}
