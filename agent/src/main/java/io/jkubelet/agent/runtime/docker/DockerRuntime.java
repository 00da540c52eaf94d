package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.InternetProtocol;
import com.github.dockerjava.api.model.NetworkSettings;
import com.github.dockerjava.api.model.Ports;
import com.github.dockerjava.api.model.PullResponseItem;
import com.github.dockerjava.api.model.StreamType;
import com.github.dockerjava.api.model.Volume;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Runtime} on a Docker Engine (tested against 20.10), the way dockershim did it: a pod
 * sandbox is a pause container named {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>} that owns the pod's
 * network namespace and a shareable IPC namespace; app containers join both with {@code
 * container:<sandbox id>}.
 *
 * <p>Thread-safe. The constructor starts no threads; {@link #podStatus} inspects containers on a
 * small pool whose threads are started on demand and die after 30 s idle.
 *
 * <h2>Timeouts</h2>
 *
 * Docker answers a {@code POST /containers/<id>/stop?t=N} only once the container is gone, which
 * takes up to the grace period plus the time the SIGKILL takes; httpclient5's response timeout is a
 * socket read timeout and cannot be set per call. A single client with a response timeout longer
 * than any grace period would let a hung engine block every other call (a list, an inspect) for as
 * long, so {@link #connect} builds two clients on the same engine: a short one ({@value
 * #RESPONSE_TIMEOUT_SECONDS} s) for everything that the engine answers at once, and a long one (one
 * hour) for the calls whose answer legitimately takes long: stop (grace periods) and pull (a silent
 * layer extraction). A stop whose grace exceeds the long timeout fails with {@code UNAVAILABLE} on
 * the client side while the engine carries on with it; the caller's retry then finds the container
 * stopped.
 */
public final class DockerRuntime implements Runtime, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DockerRuntime.class);

  /** The engine's default socket. */
  public static final String DEFAULT_HOST = "unix:///var/run/docker.sock";

  static final long RESPONSE_TIMEOUT_SECONDS = 30;
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(RESPONSE_TIMEOUT_SECONDS);
  static final Duration LONG_RESPONSE_TIMEOUT = Duration.ofHours(1);

  /** How long {@link #podStatus} waits for one inspect (queueing included). */
  static final Duration INSPECT_TIMEOUT = Duration.ofSeconds(20);

  /** How many inspects run at once, across all callers. */
  static final int INSPECT_PARALLELISM = 8;

  private static final String ZERO_TIME_PREFIX = "0001-01-01";
  private static final String DOCKER_PULLABLE = "docker-pullable://";
  private static final String DOCKER_IMAGE = "docker://";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DockerClient api;
  private final DockerClient longCalls;
  private final boolean ownsClients;

  /**
   * Labels every listed container must carry besides {@code io.kubernetes.pod.uid}: jkubelet's node
   * label, so that two agents (or test runs) sharing one engine never adopt or kill each other's
   * containers. Empty to see every kubelet-made container.
   */
  private volatile Map<String, String> scope = Map.of();

  private final ThreadPoolExecutor inspectPool;

  /**
   * Set once a sandbox with a negative {@code oom_score_adj} failed to start and started with 0:
   * later sandboxes then use 0 directly.
   */
  private final AtomicBoolean negativeOomRefused = new AtomicBoolean();

  /**
   * A runtime on one client for every call. Its response timeout must exceed the longest grace
   * period that {@link #stopContainer} will be asked for; see the class comment.
   */
  public DockerRuntime(DockerClient client) {
    this(client, client, false);
  }

  /**
   * A runtime on two clients of the same engine: {@code client} for the calls that the engine
   * answers at once, {@code longCallClient} (with a long or no response timeout) for stop and pull.
   * The caller keeps ownership of both.
   */
  public DockerRuntime(DockerClient client, DockerClient longCallClient) {
    this(client, longCallClient, false);
  }

  /**
   * Limits what this runtime lists to containers that also carry these labels (see {@code scope}).
   * Returns this runtime.
   */
  public DockerRuntime scopedTo(Map<String, String> labels) {
    this.scope = Map.copyOf(labels);
    return this;
  }

  /**
   * The label filter as the engine takes it: {@code key} (any value) or {@code key=value}, and each
   * scope label as {@code key=value}.
   */
  private List<String> scoped(String key, String value) {
    List<String> filter = new java.util.ArrayList<>();
    filter.add(value == null ? key : key + "=" + value);
    scope.forEach((k, v) -> filter.add(k + "=" + v));
    return filter;
  }

  private DockerRuntime(DockerClient api, DockerClient longCalls, boolean ownsClients) {
    this.api = Objects.requireNonNull(api, "client");
    this.longCalls = Objects.requireNonNull(longCalls, "longCallClient");
    this.ownsClients = ownsClients;
    this.inspectPool =
        new ThreadPoolExecutor(
            INSPECT_PARALLELISM,
            INSPECT_PARALLELISM,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            daemonThreads("docker-runtime-inspect-"));
    this.inspectPool.allowCoreThreadTimeOut(true);
  }

  /**
   * Connects to an engine, e.g. {@code unix:///var/run/docker.sock} or {@code tcp://host:2375}
   * (null or blank for the default socket). Nothing is sent until the first call. The API version
   * is not pinned: docker-java does not negotiate one, and unversioned paths get the engine's own.
   * The returned runtime owns its clients and closes them in {@link #close}.
   */
  public static DockerRuntime connect(String dockerHost) {
    String host = dockerHost == null || dockerHost.isBlank() ? DEFAULT_HOST : dockerHost.trim();
    DockerClientConfig config =
        DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host).build();
    DockerClient api = client(config, RESPONSE_TIMEOUT, 50);
    DockerClient longCalls = client(config, LONG_RESPONSE_TIMEOUT, 50);
    log.debug("DockerRuntime: connecting to {}", host);
    return new DockerRuntime(api, longCalls, true);
  }

  private static DockerClient client(
      DockerClientConfig config, Duration responseTimeout, int maxConnections) {
    ApacheDockerHttpClient http =
        new ApacheDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .sslConfig(config.getSSLConfig())
            .maxConnections(maxConnections)
            .connectionTimeout(CONNECT_TIMEOUT)
            .responseTimeout(responseTimeout)
            .build();
    return DockerClientImpl.getInstance(config, http);
  }

  // ---------------------------------------------------------------------------------------------
  // Engine

  @Override
  public String type() {
    return "docker";
  }

  @Override
  public String version() {
    try {
      return api.versionCmd().exec().getVersion();
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Listing and status

  @Override
  public List<ContainerSummary> listContainers() {
    List<Container> containers;
    try {
      // A filter on the key alone matches every container that has the label, whatever its value.
      containers =
          api.listContainersCmd()
              .withShowAll(true)
              .withFilter("label", scoped(Labels.POD_UID, null))
              .exec();
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
    List<ContainerSummary> out = new ArrayList<>(containers.size());
    for (Container c : containers) {
      Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
      PodRef pod = Labels.podOf(labels).orElse(null);
      if (pod == null) {
        continue; // the engine filtered on the label; an empty value is still not a pod
      }
      boolean sandbox = isSandbox(labels);
      out.add(
          new ContainerSummary(
              c.getId(),
              pod,
              sandbox ? Labels.POD_CONTAINER_NAME : labels.getOrDefault(Labels.CONTAINER_NAME, ""),
              sandbox,
              listState(c.getState()),
              Instant.ofEpochSecond(c.getCreated() == null ? 0 : c.getCreated())));
    }
    return out;
  }

  @Override
  public PodStatus podStatus(PodRef pod) {
    List<Container> containers;
    try {
      containers =
          api.listContainersCmd()
              .withShowAll(true)
              .withFilter("label", scoped(Labels.POD_UID, pod.uid()))
              .exec();
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
    if (containers.isEmpty()) {
      return PodStatus.empty(pod);
    }
    List<String> ids = containers.stream().map(Container::getId).toList();
    Map<String, InspectContainerResponse> inspected =
        inParallel(ids, id -> api.inspectContainerCmd(id).exec());

    List<String> imageIds =
        inspected.values().stream()
            .filter(r -> !isSandbox(labelsOf(r)))
            .map(InspectContainerResponse::getImageId)
            .filter(Objects::nonNull)
            .distinct()
            .toList();
    Map<String, String> imageRefs = inParallel(imageIds, this::imageRef);

    List<SandboxStatus> sandboxes = new ArrayList<>();
    List<ContainerStatus> statuses = new ArrayList<>();
    for (InspectContainerResponse r : inspected.values()) {
      if (isSandbox(labelsOf(r))) {
        sandboxes.add(sandboxStatus(r));
      } else {
        statuses.add(containerStatus(r, imageRefs));
      }
    }
    return new PodStatus(pod, sandboxes, statuses);
  }

  private SandboxStatus sandboxStatus(InspectContainerResponse r) {
    InspectContainerResponse.ContainerState state = r.getState();
    boolean running = state != null && Boolean.TRUE.equals(state.getRunning());
    boolean hostNetwork =
        r.getHostConfig() != null && "host".equals(r.getHostConfig().getNetworkMode());
    return new SandboxStatus(
        r.getId(),
        Labels.trailingNumber(r.getName() == null ? "" : r.getName()),
        running,
        running && !hostNetwork ? ipOf(r.getNetworkSettings()) : "",
        orEpoch(parseTime(r.getCreated())),
        Map.copyOf(labelsOf(r)));
  }

  /**
   * dockershim's mapping: a container that is not running has exited if it has a finish time;
   * without one, a non-zero exit code means the start failed ({@code ContainerCannotRun}, reported
   * as exited and finished when it was created so that restart policies apply); otherwise it is
   * merely created.
   */
  private static ContainerStatus containerStatus(
      InspectContainerResponse r, Map<String, String> imageRefs) {
    Map<String, String> labels = labelsOf(r);
    InspectContainerResponse.ContainerState st = r.getState();
    Instant createdAt = orEpoch(parseTime(r.getCreated()));
    Instant startedAt = st == null ? null : parseTime(st.getStartedAt());
    Instant finishedAt = st == null ? null : parseTime(st.getFinishedAt());
    int exitCode =
        st == null || st.getExitCodeLong() == null ? 0 : (int) (long) st.getExitCodeLong();
    String error = st == null || st.getError() == null ? "" : st.getError();
    boolean oomKilled = st != null && Boolean.TRUE.equals(st.getOOMKilled());

    ContainerState state;
    String reason = "";
    if (st != null && Boolean.TRUE.equals(st.getRunning())) {
      state = ContainerState.RUNNING;
      finishedAt = null;
    } else if (finishedAt != null) {
      state = ContainerState.EXITED;
      reason = oomKilled ? "OOMKilled" : exitCode == 0 ? "Completed" : "Error";
      if (startedAt != null && finishedAt.isBefore(startedAt)) {
        // StartedAt is the daemon's clock once the start call returned, FinishedAt the exit
        // event's: a process that exits at once can "finish" a millisecond before it "started".
        finishedAt = startedAt;
      }
    } else if (exitCode != 0 || !error.isEmpty()) {
      state = ContainerState.EXITED;
      reason = "ContainerCannotRun";
      finishedAt = createdAt;
      if (exitCode == 0) {
        exitCode = 128;
      }
    } else if (st != null && Boolean.TRUE.equals(st.getDead())) {
      state = ContainerState.EXITED;
      reason = "Error";
      finishedAt = createdAt;
    } else {
      state = st == null ? ContainerState.UNKNOWN : ContainerState.CREATED;
    }

    String imageId = r.getImageId() == null ? "" : r.getImageId();
    return new ContainerStatus(
        r.getId(),
        labels.getOrDefault(Labels.CONTAINER_NAME, ""),
        labels.getOrDefault(Labels.SANDBOX_ID, ""),
        state,
        createdAt,
        startedAt,
        finishedAt,
        exitCode,
        reason,
        error,
        r.getConfig() == null || r.getConfig().getImage() == null ? "" : r.getConfig().getImage(),
        imageRefs.getOrDefault(imageId, imageId.isEmpty() ? "" : DOCKER_IMAGE + imageId),
        labels.getOrDefault(Labels.CONTAINER_HASH, ""),
        Labels.intLabel(labels, Labels.RESTART_COUNT, 0),
        Map.copyOf(labels));
  }

  /**
   * Image id → image ref. Ids are content addresses, so an id's digest rarely changes; the cache is
   * dropped when it grows large. Saves one image inspect per image on every pod status.
   */
  private final Map<String, String> imageRefCache = new java.util.concurrent.ConcurrentHashMap<>();

  /** {@code docker-pullable://repo@sha256:...} when the image has a repo digest. */
  private String imageRef(String imageId) {
    String cached = imageRefCache.get(imageId);
    if (cached != null) {
      return cached;
    }
    if (imageRefCache.size() > 1000) {
      imageRefCache.clear();
    }
    String ref = inspectImageRef(imageId);
    imageRefCache.put(imageId, ref);
    return ref;
  }

  private String inspectImageRef(String imageId) {
    try {
      InspectImageResponse image = api.inspectImageCmd(imageId).exec();
      List<String> digests = image.getRepoDigests();
      if (digests != null && !digests.isEmpty() && !digests.get(0).isEmpty()) {
        return DOCKER_PULLABLE + digests.get(0);
      }
    } catch (RuntimeException e) {
      log.debug("DockerRuntime: inspecting image {} failed: {}", imageId, e.toString());
    }
    return DOCKER_IMAGE + imageId;
  }

  /**
   * Runs {@code fn} on every key on the inspect pool and waits for each up to {@link
   * #INSPECT_TIMEOUT}. Keys whose call fails with {@code NotFoundException} are left out (the
   * container vanished since the listing); any other failure fails the whole call, since a status
   * that silently misses a container would make the caller create it again.
   */
  private <T> Map<String, T> inParallel(Collection<String> keys, Function<String, T> fn) {
    Map<String, Future<T>> futures = new LinkedHashMap<>();
    try {
      for (String key : new LinkedHashSet<>(keys)) {
        futures.put(key, inspectPool.submit(() -> fn.apply(key)));
      }
      Map<String, T> out = new LinkedHashMap<>();
      for (Map.Entry<String, Future<T>> e : futures.entrySet()) {
        try {
          out.put(e.getKey(), e.getValue().get(INSPECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException ex) {
          Throwable cause = ex.getCause();
          if (cause instanceof NotFoundException) {
            log.debug("DockerRuntime: {} vanished before it could be inspected", e.getKey());
            continue;
          }
          throw cause instanceof RuntimeException re
              ? translate(re, null)
              : new RuntimeError(Kind.OTHER, String.valueOf(cause), cause);
        } catch (TimeoutException ex) {
          throw new RuntimeError(
              Kind.UNAVAILABLE,
              "inspecting "
                  + e.getKey()
                  + " took longer than "
                  + INSPECT_TIMEOUT.toSeconds()
                  + " s",
              ex);
        }
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeError(Kind.UNAVAILABLE, "interrupted while inspecting containers", e);
    } catch (RejectedExecutionException e) {
      throw new RuntimeError(Kind.UNAVAILABLE, "the Docker runtime is closed", e);
    } finally {
      futures.values().forEach(f -> f.cancel(true)); // a no-op for the completed ones
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sandboxes

  @Override
  public String runPodSandbox(SandboxConfig config) {
    int oomScoreAdj = config.oomScoreAdj();
    if (oomScoreAdj < 0 && negativeOomRefused.get()) {
      oomScoreAdj = 0;
    }
    String id = createSandbox(config, oomScoreAdj);
    RuntimeError failure;
    try {
      startOrThrow(id);
      return id;
    } catch (RuntimeError e) {
      failure = e;
    }
    removeQuietly(id);
    if (oomScoreAdj >= 0) {
      throw failure;
    }
    // Some hosts (user namespaces, some sandboxes) refuse a negative oom_score_adj, and runc then
    // fails the start with an opaque "can't get final child's PID from pipe: EOF". Try again with
    // 0 and, if that works, stop asking for negative values.
    log.debug(
        "DockerRuntime: sandbox {} failed to start with oom_score_adj={}: {}",
        config.containerName(),
        oomScoreAdj,
        failure.getMessage());
    String retry = createSandbox(config, 0);
    try {
      startOrThrow(retry);
    } catch (RuntimeError e) {
      removeQuietly(retry);
      throw e;
    }
    if (negativeOomRefused.compareAndSet(false, true)) {
      log.warn(
          "DockerRuntime: the runtime refused oom_score_adj={} for sandbox {}; falling back to 0"
              + " (set podInfraOomScoreAdj: 0 to silence)",
          oomScoreAdj,
          config.containerName());
    }
    return retry;
  }

  /** Creates the sandbox container; a leftover of the same name is removed and creation retried. */
  private String createSandbox(SandboxConfig config, int oomScoreAdj) {
    try {
      return sandboxCmd(config, oomScoreAdj).exec().getId();
    } catch (ConflictException e) {
      log.info(
          "DockerRuntime: removing leftover container {} to create the sandbox again",
          config.containerName());
      removeQuietly(config.containerName());
    } catch (RuntimeException e) {
      throw translate(e, Kind.CREATE);
    }
    try {
      return sandboxCmd(config, oomScoreAdj).exec().getId();
    } catch (RuntimeException e) {
      throw translate(e, Kind.CREATE);
    }
  }

  private CreateContainerCmd sandboxCmd(SandboxConfig config, int oomScoreAdj) {
    HostConfig host =
        HostConfig.newHostConfig().withIpcMode("shareable").withOomScoreAdj(oomScoreAdj);
    if (config.cpuShares() > 0) {
      host.withCpuShares(clampToInt(config.cpuShares()));
    }
    CreateContainerCmd cmd =
        api.createContainerCmd(config.image())
            .withName(config.containerName())
            .withLabels(new HashMap<>(config.labels()));
    if (config.hostNetwork()) {
      host.withNetworkMode("host"); // port mappings are meaningless on the host's network
    } else {
      if (config.hostname() != null && !config.hostname().isEmpty()) {
        cmd.withHostName(config.hostname());
      }
      // The app containers share the sandbox's network namespace, so it owns the host ports.
      Ports bindings = new Ports();
      List<ExposedPort> exposed = new ArrayList<>();
      for (SandboxConfig.PortMapping pm : config.ports()) {
        if (pm.hostPort() <= 0 || pm.containerPort() <= 0) {
          continue; // like dockershim: no binding without a host port
        }
        ExposedPort port = new ExposedPort(pm.containerPort(), protocol(pm.protocol()));
        exposed.add(port);
        String hostIp = pm.hostIp() == null || pm.hostIp().isEmpty() ? null : pm.hostIp();
        bindings.bind(port, Ports.Binding.bindIpAndPort(hostIp, pm.hostPort()));
      }
      if (!exposed.isEmpty()) {
        cmd.withExposedPorts(exposed);
        host.withPortBindings(bindings);
      }
    }
    return cmd.withHostConfig(host);
  }

  @Override
  public void stopPodSandbox(String sandboxId, Duration grace) {
    stopContainer(sandboxId, grace);
  }

  @Override
  public void removePodSandbox(String sandboxId) {
    removeContainer(sandboxId);
  }

  // ---------------------------------------------------------------------------------------------
  // Containers

  @Override
  public String createContainer(String sandboxId, ContainerConfig config) {
    Objects.requireNonNull(sandboxId, "sandboxId");
    List<String> entrypoint =
        config.entrypoint() == null || config.entrypoint().isEmpty() ? null : config.entrypoint();
    List<String> args = config.cmd();
    if (args != null && args.isEmpty() && entrypoint == null) {
      // The engine fills an empty Cmd from the image whenever the Entrypoint is empty too, so an
      // empty args list would not clear the image's CMD. Naming the image's entrypoint explicitly
      // makes the engine keep the empty Cmd. (An image without an entrypoint still gets its CMD:
      // Docker cannot express "no command at all".)
      entrypoint = imageEntrypoint(config.image());
    }

    Map<String, String> labels = new HashMap<>(config.labels());
    labels.put(Labels.SANDBOX_ID, sandboxId);
    labels.putIfAbsent(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);

    String joined = "container:" + sandboxId;
    HostConfig host = HostConfig.newHostConfig().withNetworkMode(joined).withIpcMode(joined);
    if (!config.mounts().isEmpty()) {
      host.withBinds(
          config.mounts().stream()
              .map(
                  m ->
                      new Bind(
                          m.hostPath(),
                          new Volume(m.containerPath()),
                          m.readOnly() ? AccessMode.ro : AccessMode.rw))
              .toList());
    }
    ContainerConfig.Resources res = config.resources();
    if (res.memoryLimitBytes() > 0) {
      host.withMemory(res.memoryLimitBytes()).withMemorySwap(res.memoryLimitBytes());
    }
    if (res.cpuQuotaMicros() > 0) {
      host.withCpuQuota(res.cpuQuotaMicros())
          .withCpuPeriod(res.cpuPeriodMicros() > 0 ? res.cpuPeriodMicros() : 100_000L);
    }
    if (res.cpuShares() > 0) {
      host.withCpuShares(clampToInt(res.cpuShares()));
    }

    CreateContainerCmd cmd =
        api.createContainerCmd(config.image())
            .withName(config.name())
            .withLabels(labels)
            .withEnv(config.env())
            .withTty(config.tty())
            .withStdinOpen(config.stdin())
            .withHostConfig(host);
    if (entrypoint != null) {
      cmd.withEntrypoint(entrypoint);
    }
    if (args != null) {
      cmd.withCmd(args); // docker-java sends "Cmd": [] for an empty list
    }
    if (!config.workingDir().isEmpty()) {
      cmd.withWorkingDir(config.workingDir());
    }
    try {
      String id = cmd.exec().getId();
      log.debug("DockerRuntime: created {} ({})", config.name(), id);
      return id;
    } catch (RuntimeException e) {
      throw translate(e, Kind.CREATE);
    }
  }

  private List<String> imageEntrypoint(String image) {
    try {
      InspectImageResponse inspected = api.inspectImageCmd(image).exec();
      String[] entrypoint =
          inspected.getConfig() == null ? null : inspected.getConfig().getEntrypoint();
      return entrypoint == null || entrypoint.length == 0 ? null : Arrays.asList(entrypoint);
    } catch (RuntimeException e) {
      throw translate(e, Kind.CREATE);
    }
  }

  @Override
  public void startContainer(String containerId) {
    startOrThrow(containerId);
  }

  private void startOrThrow(String containerId) {
    try {
      api.startContainerCmd(containerId).exec();
    } catch (NotModifiedException e) {
      // already running
    } catch (RuntimeException e) {
      throw translate(e, Kind.START);
    }
  }

  @Override
  public void stopContainer(String containerId, Duration grace) {
    long millis = grace == null || grace.isNegative() ? 0 : grace.toMillis();
    int seconds = clampToInt((millis + 999) / 1000); // round up: never cut a grace period short
    try {
      // On the long client: the engine answers once the container is gone (see class comment).
      longCalls.stopContainerCmd(containerId).withTimeout(seconds).exec();
    } catch (NotModifiedException | NotFoundException e) {
      // already stopped, or gone
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
  }

  @Override
  public void removeContainer(String containerId) {
    try {
      api.removeContainerCmd(containerId).withForce(true).withRemoveVolumes(true).exec();
    } catch (NotFoundException e) {
      // already gone
    } catch (ConflictException e) {
      if (!engineMessage(e).contains("already in progress")) {
        throw translate(e, null);
      }
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
  }

  private void removeQuietly(String idOrName) {
    try {
      removeContainer(idOrName);
    } catch (RuntimeError e) {
      log.warn("DockerRuntime: could not remove {}: {}", idOrName, e.getMessage());
    }
  }

  /**
   * Runs the command as dockershim's {@code ExecSync} did: an exec instance attached to stdout and
   * stderr (no stdin, no TTY), whose output is collected while it runs and whose exit code is then
   * read from the exec's inspect. The attach stream is on the long-call client, so a command may
   * run (silently) for up to {@link #LONG_RESPONSE_TIMEOUT}; the short client would cut it after
   * {@value #RESPONSE_TIMEOUT_SECONDS} s.
   *
   * <p>Stdout and stderr are kept interleaved as they arrive, up to {@link #MAX_EXEC_OUTPUT_BYTES}
   * bytes; the rest is read and discarded. A null or non-positive {@code timeout} waits without
   * limit. When the timeout runs out, the result is {@link ExecResult#timeout} with the output so
   * far.
   *
   * <p>A missing container is {@code NOT_FOUND}; a container that is not running is {@code OTHER}
   * with the engine's message. An executable that does not exist is not an error here: the engine
   * creates the exec, the start fails inside the container, and the result carries the runtime's
   * exit code (126 on Docker 20.10, 127 on some runtimes) with its "OCI runtime exec failed"
   * message as output, which is what upstream's probes report.
   */
  @Override
  public ExecResult exec(String containerId, List<String> command, Duration timeout) {
    Objects.requireNonNull(containerId, "containerId");
    if (command == null || command.isEmpty()) {
      throw new RuntimeError(Kind.OTHER, "exec in " + containerId + ": no command given");
    }
    boolean bounded = timeout != null && timeout.isPositive();
    long deadline = bounded ? System.nanoTime() + timeout.toNanos() : 0;

    String execId;
    try {
      execId =
          api.execCreateCmd(containerId)
              .withCmd(command.toArray(String[]::new))
              .withAttachStdout(true)
              .withAttachStderr(true)
              .exec()
              .getId();
    } catch (RuntimeException e) {
      // 404: no such container; 409: "Container <id> is not running" (or paused, or restarting).
      throw translate(e, null);
    }

    ExecCallback callback = new ExecCallback();
    try {
      longCalls.execStartCmd(execId).exec(callback);
      boolean completed;
      if (bounded) {
        completed = callback.awaitCompletion(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } else {
        callback.awaitCompletion();
        completed = true;
      }
      if (!completed) {
        // NOTE: Docker has no way to kill an exec'd process, so the command may keep running in
        // the container after this returns (as with dockershim); only the attach stream is closed.
        callback.abandon();
        log.debug(
            "DockerRuntime: exec {} in {} timed out after {} ms",
            command,
            containerId,
            timeout.toMillis());
        return ExecResult.timeout(callback.output());
      }
      Throwable failure = callback.failure;
      if (failure != null) {
        log.debug(
            "DockerRuntime: exec {} in {} failed: {}", command, containerId, failure.toString());
        throw failure instanceof RuntimeException re
            ? translate(re, null)
            : new RuntimeError(Kind.OTHER, failure.toString(), failure);
      }
      Long exitCode = awaitExitCode(execId, bounded, deadline);
      String output = callback.output();
      if (exitCode == null) {
        // The stream ended but the exec still ran at the deadline (see awaitExitCode).
        log.debug(
            "DockerRuntime: exec {} in {} closed its output but did not exit in time",
            command,
            containerId);
        return ExecResult.timeout(output);
      }
      if (callback.discarded() > 0) {
        log.debug(
            "DockerRuntime: exec {} in {}: kept {} bytes of output, discarded {}",
            command,
            containerId,
            MAX_EXEC_OUTPUT_BYTES,
            callback.discarded());
      }
      log.debug("DockerRuntime: exec {} in {} exited with {}", command, containerId, exitCode);
      return new ExecResult(clampToInt(exitCode), output, false);
    } catch (InterruptedException e) {
      callback.abandon();
      Thread.currentThread().interrupt();
      throw new RuntimeError(
          Kind.OTHER, "interrupted while running " + command + " in " + containerId, e);
    } catch (RuntimeException e) {
      callback.abandon();
      throw translate(e, null);
    }
  }

  /** The most output {@link #exec} keeps: 10 KiB, as upstream's probes keep. */
  static final int MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

  /** The first and the longest pause between two inspects in {@link #awaitExitCode}. */
  private static final Duration EXEC_POLL_FIRST = Duration.ofMillis(5);

  private static final Duration EXEC_POLL_MAX = Duration.ofMillis(500);

  /**
   * The exit code of an exec whose streams have closed, or null if it still runs at the deadline.
   * The first inspect normally has it: Docker 20.10 ends the attach stream only once the process
   * has exited, even one that closed its stdout and stderr early. dockershim nevertheless saw execs
   * still running after their stream ended and polled for the exit, so this does too, inspecting
   * again after a growing pause: the engine has no event to wait on short of the whole event
   * stream.
   */
  private Long awaitExitCode(String execId, boolean bounded, long deadline)
      throws InterruptedException {
    long pause = EXEC_POLL_FIRST.toNanos();
    while (true) {
      InspectExecResponse inspected = api.inspectExecCmd(execId).exec();
      if (!Boolean.TRUE.equals(inspected.isRunning())) {
        Long exitCode = inspected.getExitCodeLong();
        if (exitCode == null) {
          throw new RuntimeError(Kind.OTHER, "exec " + execId + " ended without an exit code");
        }
        return exitCode;
      }
      long wait = pause;
      if (bounded) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        wait = Math.min(wait, left);
      }
      log.debug("DockerRuntime: exec {} still runs after its streams closed", execId);
      TimeUnit.NANOSECONDS.sleep(wait); // a poll's backoff: see the method comment
      pause = Math.min(pause * 2, EXEC_POLL_MAX.toNanos());
    }
  }

  /**
   * Collects an exec's stdout and stderr (and a TTY's raw stream) in arrival order, up to {@link
   * #MAX_EXEC_OUTPUT_BYTES}, and the first failure. As {@link PullCallback}, it does not let
   * docker-java's {@code onError} log at ERROR: the caller is told and decides how loud to be.
   */
  private static final class ExecCallback extends ResultCallback.Adapter<Frame> {
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream(256);
    private long discarded;
    private volatile boolean abandoned;
    volatile Throwable failure;

    @Override
    public void onStart(Closeable stream) {
      super.onStart(stream);
      if (abandoned) {
        closeQuietly(this); // the caller gave up before the engine answered
      }
    }

    @Override
    public void onNext(Frame frame) {
      if (frame == null || frame.getPayload() == null) {
        return;
      }
      StreamType type = frame.getStreamType();
      if (type == StreamType.STDOUT || type == StreamType.STDERR || type == StreamType.RAW) {
        append(frame.getPayload());
      }
    }

    @Override
    public void onError(Throwable throwable) {
      if (failure == null && !abandoned) {
        failure = throwable; // once abandoned, a failure is only the stream being closed
      }
      closeQuietly(this); // completes the callback: awaitCompletion returns
    }

    /** Stops reading: closes the stream, now or as soon as it opens. */
    void abandon() {
      abandoned = true;
      closeQuietly(this);
    }

    private synchronized void append(byte[] payload) {
      int keep = Math.min(payload.length, MAX_EXEC_OUTPUT_BYTES - kept.size());
      kept.write(payload, 0, keep);
      discarded += payload.length - keep;
    }

    synchronized long discarded() {
      return discarded;
    }

    /** What was kept, as UTF-8; a character cut at the cap becomes U+FFFD. */
    synchronized String output() {
      return kept.toString(StandardCharsets.UTF_8);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Images

  @Override
  public boolean imagePresent(String image) {
    try {
      api.inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    } catch (RuntimeException e) {
      throw translate(e, null);
    }
  }

  @Override
  public void pullImage(String image, Duration timeout) {
    String[] repoTag = repositoryAndTag(image);
    PullCallback callback = new PullCallback();
    try {
      longCalls.pullImageCmd(repoTag[0]).withTag(repoTag[1]).exec(callback);
      long millis = timeout == null ? Long.MAX_VALUE : Math.max(1, timeout.toMillis());
      if (!callback.awaitCompletion(millis, TimeUnit.MILLISECONDS)) {
        throw new RuntimeError(
            Kind.IMAGE_PULL,
            "pulling " + image + " did not complete within " + timeout.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeError(Kind.IMAGE_PULL, "interrupted while pulling " + image, e);
    } catch (RuntimeError e) {
      throw e;
    } catch (RuntimeException e) {
      throw new RuntimeError(Kind.IMAGE_PULL, failureMessage(e), e);
    } finally {
      closeQuietly(callback);
    }
    Throwable failure = callback.failure;
    if (failure != null) {
      String message =
          failure instanceof RuntimeException re ? failureMessage(re) : failure.toString();
      log.debug("DockerRuntime: pulling {} failed: {}", image, message);
      throw new RuntimeError(Kind.IMAGE_PULL, message, failure);
    }
    String error = callback.error;
    if (error != null) {
      log.debug("DockerRuntime: pulling {} failed: {}", image, error);
      throw new RuntimeError(Kind.IMAGE_PULL, error);
    }
    log.info("DockerRuntime: pulled {}", image);
  }

  /**
   * Collects the first error: one the engine reports inside the progress stream, or one the request
   * failed with. docker-java's own {@code onError} would log every failed pull at ERROR with a
   * stack trace, although the caller is told and decides how loud to be.
   */
  private static final class PullCallback extends ResultCallback.Adapter<PullResponseItem> {
    volatile String error;
    volatile Throwable failure;

    @Override
    public void onError(Throwable throwable) {
      if (failure == null) {
        failure = throwable;
      }
      closeQuietly(this); // completes the callback: awaitCompletion returns
    }

    @Override
    @SuppressWarnings("deprecation") // getError: older engines send only the plain "error"
    public void onNext(PullResponseItem item) {
      if (error == null && item != null && item.isErrorIndicated()) {
        error =
            item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null
                ? item.getErrorDetail().getMessage()
                : item.getError();
      }
    }
  }

  /**
   * Splits a reference into what {@code POST /images/create} wants: {@code fromImage} and {@code
   * tag}, the tag being "latest" when absent or the digest for {@code repo@sha256:...}.
   */
  static String[] repositoryAndTag(String image) {
    int at = image.indexOf('@');
    if (at >= 0) {
      return new String[] {image.substring(0, at), image.substring(at + 1)};
    }
    int colon = image.lastIndexOf(':');
    if (colon > image.lastIndexOf('/')) { // a ':' before the last '/' is a registry port
      return new String[] {image.substring(0, colon), image.substring(colon + 1)};
    }
    return new String[] {image, "latest"};
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Follows the engine's container events (start, die, destroy, oom) for this runtime's scope and
   * calls {@code onChange} for each; on a broken stream it reconnects after a second.
   */
  @Override
  public AutoCloseable watchContainerEvents(Runnable onChange) {
    java.util.concurrent.atomic.AtomicBoolean open =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicReference<java.io.Closeable> current =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread watcher =
        Thread.ofPlatform()
            .name("docker-events")
            .daemon(true)
            .start(
                () -> {
                  while (open.get()) {
                    try {
                      var callback =
                          new com.github.dockerjava.api.async.ResultCallback.Adapter<
                              com.github.dockerjava.api.model.Event>() {
                            @Override
                            public void onNext(com.github.dockerjava.api.model.Event e) {
                              onChange.run();
                            }
                          };
                      current.set(callback);
                      longCalls
                          .eventsCmd()
                          .withEventTypeFilter(com.github.dockerjava.api.model.EventType.CONTAINER)
                          .withEventFilter("start", "die", "destroy", "oom")
                          .withLabelFilter(scope)
                          .exec(callback)
                          .awaitCompletion();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      return;
                    } catch (RuntimeException e) {
                      log.debug("DockerRuntime: event stream broke: {}", e.toString());
                    }
                    if (open.get()) {
                      try {
                        Thread.sleep(1000); // reconnect backoff; the relist covers the gap
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                      }
                    }
                  }
                });
    return () -> {
      open.set(false);
      java.io.Closeable c = current.get();
      if (c != null) {
        c.close();
      }
      watcher.interrupt();
    };
  }

  /** Stops the inspect pool and, for a runtime from {@link #connect}, closes its clients. */
  @Override
  public void close() {
    inspectPool.shutdownNow();
    if (ownsClients) {
      closeQuietly(api);
      closeQuietly(longCalls);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /**
   * Maps a docker-java exception: 404 is {@code NOT_FOUND}; any other engine answer is {@code
   * onEngineError} when given (the operation's own kind, e.g. {@code CREATE}), else {@code
   * UNAVAILABLE} for a server error and {@code OTHER} for a client error; an I/O failure (no
   * connection, a timeout) is {@code UNAVAILABLE}. The message is the engine's own.
   */
  static RuntimeError translate(RuntimeException e, Kind onEngineError) {
    if (e instanceof RuntimeError re) {
      return re;
    }
    if (e instanceof NotFoundException) {
      return new RuntimeError(Kind.NOT_FOUND, engineMessage((DockerException) e), e);
    }
    if (e instanceof DockerException de) {
      Kind kind =
          onEngineError != null
              ? onEngineError
              : de.getHttpStatus() >= 500 ? Kind.UNAVAILABLE : Kind.OTHER;
      return new RuntimeError(kind, engineMessage(de), e);
    }
    if (isConnectionFailure(e)) {
      return new RuntimeError(
          Kind.UNAVAILABLE, "the Docker engine did not answer: " + rootMessage(e), e);
    }
    return new RuntimeError(Kind.OTHER, failureMessage(e), e);
  }

  private static String failureMessage(RuntimeException e) {
    if (e instanceof DockerException de) {
      return engineMessage(de);
    }
    if (isConnectionFailure(e)) {
      return "the Docker engine did not answer: " + rootMessage(e);
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  /**
   * The engine's message from a docker-java exception, whose text is {@code Status 404:
   * {"message":"No such container: x"}}.
   */
  static String engineMessage(DockerException e) {
    String text = e.getMessage() == null ? "" : e.getMessage().trim();
    int brace = text.indexOf('{');
    if (brace >= 0) {
      try {
        JsonNode node = JSON.readTree(text.substring(brace));
        if (node != null && node.hasNonNull("message")) {
          return node.get("message").asText();
        }
      } catch (IOException | RuntimeException ignored) {
        // not JSON: fall through
      }
    }
    return text.replaceFirst("^Status \\d+:\\s*", "");
  }

  private static boolean isConnectionFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t.getClass().getSimpleName().equals("ProcessingException")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.toString();
  }

  private static boolean isSandbox(Map<String, String> labels) {
    return Labels.TYPE_SANDBOX.equals(labels.get(Labels.DOCKER_TYPE));
  }

  private static Map<String, String> labelsOf(InspectContainerResponse r) {
    return r.getConfig() == null || r.getConfig().getLabels() == null
        ? Map.of()
        : r.getConfig().getLabels();
  }

  static ContainerState listState(String state) {
    if (state == null) {
      return ContainerState.UNKNOWN;
    }
    return switch (state.toLowerCase(Locale.ROOT)) {
      case "running" -> ContainerState.RUNNING;
      case "created" -> ContainerState.CREATED;
      case "exited", "dead" -> ContainerState.EXITED;
      default -> ContainerState.UNKNOWN;
    };
  }

  /**
   * The IP on the default bridge, else on any other network the container is on, else the top-level
   * {@code IPAddress} (deprecated: engines from API 1.44 on no longer send it), else "".
   */
  @SuppressWarnings("deprecation")
  private static String ipOf(NetworkSettings settings) {
    if (settings == null) {
      return "";
    }
    Map<String, ContainerNetwork> networks =
        settings.getNetworks() == null ? Map.of() : settings.getNetworks();
    ContainerNetwork bridge = networks.get("bridge");
    if (bridge != null && bridge.getIpAddress() != null && !bridge.getIpAddress().isEmpty()) {
      return bridge.getIpAddress();
    }
    return networks.values().stream()
        .map(ContainerNetwork::getIpAddress)
        .filter(ip -> ip != null && !ip.isEmpty())
        .findFirst()
        .orElse(settings.getIpAddress() == null ? "" : settings.getIpAddress());
  }

  /** Docker's RFC 3339 (nanosecond) time, or null for its zero time or nothing. */
  static Instant parseTime(String time) {
    if (time == null || time.isEmpty() || time.startsWith(ZERO_TIME_PREFIX)) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      log.debug("DockerRuntime: unparseable time {}", time);
      return null;
    }
  }

  private static Instant orEpoch(Instant t) {
    return t == null ? Instant.EPOCH : t;
  }

  private static InternetProtocol protocol(String protocol) {
    if (protocol == null || protocol.isEmpty()) {
      return InternetProtocol.TCP;
    }
    return InternetProtocol.parse(protocol.toLowerCase(Locale.ROOT));
  }

  private static int clampToInt(long v) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(Integer.MIN_VALUE, v));
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.debug("DockerRuntime: closing {} failed: {}", c, e.toString());
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
