package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import com.github.dockerjava.api.model.EventType;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.StreamHandle;
import io.jkubelet.agent.runtime.StreamIo;
import io.jkubelet.agent.util.Time;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The {@link Runtime} on a Docker Engine (tested against 20.10), the way dockershim did it: a pod
 * sandbox is a pause container named {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>} that owns the pod's
 * network namespace and a shareable IPC namespace; app containers join both with {@code
 * container:<sandbox id>}.
 *
 * <p>A facade over one part per job: {@link PodInspector} (listing and inspects, mapped by {@link
 * InspectMapping}), {@link Sandboxes}, {@link Containers}, {@link Images}, {@link ExecSync} and
 * {@link EventWatcher}, and for the client streams {@link DockerStreams} and {@link PortForwarder};
 * every docker-java exception becomes a {@code RuntimeError} in {@link DockerErrors}.
 *
 * <p>Thread-safe. The constructor starts no threads; {@link #podStatus} inspects containers on a
 * small pool whose threads are started on demand and die after 30 s idle. Time (exec deadlines, the
 * exec poll's pauses, the event stream's reconnects) is the injected {@link Time}'s.
 *
 * <h2>Timeouts</h2>
 *
 * Docker answers a {@code POST /containers/<id>/stop?t=N} only once the container is gone, which
 * takes up to the grace period plus the time the SIGKILL takes; httpclient5's response timeout is a
 * socket read timeout and cannot be set per call. A single client with a response timeout longer
 * than any grace period would let a hung engine block every other call (a list, an inspect) for as
 * long, so {@link #connect} builds two clients on the same engine ({@link DockerClients}): a short
 * one (--runtime-request-timeout, upstream's 2 min) for everything that the engine answers at once,
 * and a long one (one hour) for the calls whose answer legitimately takes long: stop (grace
 * periods), pull (a silent layer extraction), exec and events (streams). A stop whose grace exceeds
 * the long timeout fails with {@code UNAVAILABLE} on the client side while the engine carries on
 * with it; the caller's retry then finds the container stopped.
 */
public final class DockerRuntime implements Runtime, AutoCloseable {

  /** The engine's default socket. */
  public static final String DEFAULT_HOST = "unix:///var/run/docker.sock";

  private final DockerClients clients;
  private final PodInspector inspector;
  private final Images images;
  private final Containers containers;
  private final Sandboxes sandboxes;
  private final ExecSync execs;
  private final EventWatcher events;
  private final DockerStreams streams;
  private final PortForwarder portForwarder;

  /** What this runtime lists and watches; see {@link Scope}. */
  private volatile Scope scope = Scope.ALL;

  private final EngineLogs logs;
  private final JsonFileLogs fileLogs;

  /** {@code host} is where streams ({@link Hijack}) connect: the engine of {@code clients}. */
  private DockerRuntime(DockerClients clients, String host, Time time) {
    this.clients = clients;
    this.inspector = new PodInspector(clients.api());
    this.images = new Images(clients);
    this.containers =
        new Containers(clients, images, new NegativeOom(NegativeOom.localProbe(host)));
    this.sandboxes = new Sandboxes(clients, containers);
    this.execs = new ExecSync(clients, time.clock(), time.sleeper());
    this.events = new EventWatcher(this::openEvents, time.sleeper());
    this.streams = new DockerStreams(clients, host, execs, time.clock());
    this.portForwarder = new PortForwarder(clients);
    this.logs = new EngineLogs(clients, host);
    this.fileLogs = new JsonFileLogs(host);
  }

  /**
   * A container's output: a request that does not follow reads the json-file log directly where it
   * can ({@link JsonFileLogs}), anything else the engine's log API ({@link EngineLogs}).
   */
  @Override
  public AutoCloseable containerLogs(
      String containerId,
      io.jkubelet.agent.runtime.LogRequest request,
      io.jkubelet.agent.runtime.LogSink sink) {
    if (request.follow()) {
      return logs.read(containerId, request, sink);
    }
    var inspected = logs.inspect(containerId);
    return fileLogs
        .files(inspected)
        .map(files -> fileLogs.read(files, request, sink))
        .orElseGet(() -> logs.read(inspected, request, sink));
  }

  @Override
  public AutoCloseable followLogEntries(
      String containerId,
      java.util.Optional<java.time.Instant> since,
      io.jkubelet.agent.runtime.LogEntrySink sink) {
    return logs.follow(containerId, since, sink);
  }

  /**
   * Connects to an engine, e.g. {@code unix:///var/run/docker.sock} or {@code tcp://host:2375}
   * (null or blank for the default socket). Nothing is sent until the first call. The returned
   * runtime owns its clients and closes them in {@link #close}.
   */
  public static DockerRuntime connect(String dockerHost, Time time) {
    return connect(dockerHost, time, DockerClients.RESPONSE_TIMEOUT);
  }

  /**
   * As above, with {@code requestTimeout} (upstream's {@code runtimeRequestTimeout}) as the short
   * client's response timeout, instead of {@value DockerClients#RESPONSE_TIMEOUT_SECONDS} s.
   */
  public static DockerRuntime connect(String dockerHost, Time time, Duration requestTimeout) {
    String host = dockerHost == null || dockerHost.isBlank() ? DEFAULT_HOST : dockerHost.trim();
    return new DockerRuntime(DockerClients.connect(host, requestTimeout), host, time);
  }

  /**
   * Limits what this runtime lists and watches to containers that also carry these labels, e.g. the
   * node label, so that agents sharing an engine leave each other's containers alone. Returns this
   * runtime.
   */
  public DockerRuntime scopedTo(Map<String, String> labels) {
    this.scope = new Scope(labels);
    return this;
  }

  @Override
  public String type() {
    return "docker";
  }

  @Override
  public String version() {
    try {
      return clients.api().versionCmd().exec().getVersion();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  /**
   * The engine's root directory ({@code DockerRootDir}: images, layers, container files), for the
   * image file system's stats; empty when the engine does not answer.
   */
  public java.util.Optional<java.nio.file.Path> rootDir() {
    try {
      String dir = clients.api().infoCmd().exec().getDockerRootDir();
      return dir == null || dir.isEmpty()
          ? java.util.Optional.empty()
          : java.util.Optional.of(java.nio.file.Path.of(dir));
    } catch (RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * The engine's images for image garbage collection, on this runtime's clients. NOTE: not limited
   * by {@link #scopedTo}: an image is in use when any container of the engine uses it.
   */
  public io.jkubelet.agent.runtime.ImageService imageService() {
    return new DockerImageService(clients, this::rootDir);
  }

  /**
   * The engine's cgroup driver ({@code CgroupDriver} of {@code docker info}: {@code cgroupfs} or
   * {@code systemd}); empty when the engine does not say.
   *
   * @throws RuntimeError when the engine does not answer
   */
  public java.util.Optional<String> cgroupDriver() {
    try {
      String driver = clients.api().infoCmd().exec().getCGroupDriver();
      return driver == null || driver.isEmpty()
          ? java.util.Optional.empty()
          : java.util.Optional.of(driver);
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  @Override
  public List<ContainerSummary> listContainers() {
    return inspector.listContainers(scope);
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    return inspector.podStatus(pod, scope);
  }

  @Override
  public List<ContainerSummary> listContainers(PodRef pod) {
    return inspector.listContainers(pod, scope);
  }

  @Override
  public PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return inspector.podStatus(pod, containerIds);
  }

  @Override
  public String runPodSandbox(SandboxConfig config) {
    return sandboxes.run(config);
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    containers.stop(sandboxId, grace);
  }

  @Override
  public String sandboxNetNs(String sandboxId) {
    return sandboxes.netNs(sandboxId);
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    containers.remove(sandboxId);
  }

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    return containers.create(sandboxId, config);
  }

  @Override
  public void startContainer(String containerId) {
    containers.start(containerId);
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    containers.stop(containerId, grace);
  }

  @Override
  public void removeContainer(String containerId) {
    containers.remove(containerId);
  }

  /** See {@link ExecSync}. */
  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    return execs.exec(containerId, command, timeout);
  }

  /** See {@link DockerStreams}. */
  @Override
  public StreamHandle execStream(String containerId, List<String> command, StreamIo io) {
    return streams.exec(containerId, command, io);
  }

  /** See {@link DockerStreams}. */
  @Override
  public StreamHandle attach(String containerId, StreamIo io) {
    return streams.attach(containerId, io);
  }

  /** See {@link PortForwarder}. */
  @Override
  public StreamHandle portForward(String sandboxId, int port, InputStream in, OutputStream out) {
    return portForwarder.forward(sandboxId, port, in, out);
  }

  @Override
  public boolean imagePresent(String image) {
    return images.present(image);
  }

  @Override
  public String imageUser(String image) {
    return images.user(image);
  }

  @Override
  public List<ImageSummary> listImages() {
    return images.list();
  }

  @Override
  public void pullImage(String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    images.pull(image, auth, timeout, observer);
  }

  /**
   * Follows the engine's container events (start, die, destroy, oom) for this runtime's scope and
   * calls {@code onChange} for each; see {@link EventWatcher} for reconnects.
   */
  @Override
  public AutoCloseable watchContainerEvents(Runnable onChange) {
    return events.watch(onChange);
  }

  /**
   * One event stream: read on the watch's own thread from the long calls' transport ({@link
   * EngineEvents}), or through docker-java's {@code eventsCmd} (which reads it on a thread of its
   * own) for a client without one.
   */
  private void openEvents(ResultCallback<Event> callback) {
    var transport = DockerClients.transportOf(clients.longCalls());
    if (transport.isPresent()) {
      new EngineEvents(transport.get(), scope).open(callback);
      return;
    }
    clients
        .longCalls()
        .eventsCmd()
        .withEventTypeFilter(EventType.CONTAINER)
        .withEventFilter(EngineEvents.EVENTS.toArray(String[]::new))
        .withLabelFilter(scope.labels())
        .exec(callback);
  }

  /** Stops the inspect pool and, for a runtime from {@link #connect}, closes its clients. */
  @Override
  public void close() {
    inspector.close();
    clients.close();
  }
}
