package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PropagationMode;
import com.github.dockerjava.api.model.SELContext;
import com.github.dockerjava.api.model.Volume;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container's life on the engine: create (joined to its sandbox's network and IPC namespaces),
 * start, stop and remove, sandboxes' containers included. Stop goes to the long-call client: the
 * engine answers it only once the container is gone. Thread-safe (stateless besides the clients).
 */
final class Containers {
  private static final Logger log = LoggerFactory.getLogger(Containers.class);

  private final DockerClient api;
  private final DockerClient longCalls;
  private final Images images;

  /** What this host allows of a negative {@code oom_score_adj}; shared with the sandboxes. */
  final NegativeOom negativeOom;

  /** The {@code oom_score_adj} each container not yet started was created with, by id. */
  private final Map<String, Integer> createdAdj = new java.util.concurrent.ConcurrentHashMap<>();

  Containers(DockerClients clients, Images images, NegativeOom negativeOom) {
    this.negativeOom = negativeOom;
    this.api = clients.api();
    this.longCalls = clients.longCalls();
    this.images = images;
  }

  /** Creates an app container in the sandbox; returns its id. Failures are {@code CREATE}. */
  String create(String sandboxId, ContainerConfig config) {
    Objects.requireNonNull(sandboxId, "sandboxId");
    List<String> entrypoint =
        config.process().entrypoint() == null || config.process().entrypoint().isEmpty()
            ? null
            : config.process().entrypoint();
    List<String> args = config.process().cmd();
    if (args != null && args.isEmpty() && entrypoint == null) {
      // The engine fills an empty Cmd from the image whenever the Entrypoint is empty too, so an
      // empty args list would not clear the image's CMD. Naming the image's entrypoint explicitly
      // makes the engine keep the empty Cmd. (An image without an entrypoint still gets its CMD:
      // Docker cannot express "no command at all".)
      entrypoint = images.entrypoint(config.image());
    }
    HostConfig host = hostConfig(sandboxId, config);
    int oomScoreAdj = negativeOom.effective(config.linux().resources().oomScoreAdj());
    host.withOomScoreAdj(oomScoreAdj);
    CreateContainerCmd cmd =
        api.createContainerCmd(config.image())
            .withName(config.name())
            .withLabels(labels(sandboxId, config))
            .withEnv(config.process().env())
            .withTty(config.stdio().tty())
            .withStdinOpen(config.stdio().stdin())
            .withStdInOnce(config.stdio().stdinOnce())
            .withHostConfig(host);
    SecurityOptions.container(config.linux().security(), sandboxId, cmd, host);
    if (entrypoint != null) {
      cmd.withEntrypoint(entrypoint);
    }
    if (args != null) {
      cmd.withCmd(args); // docker-java sends "Cmd": [] for an empty list
    }
    if (!config.process().workingDir().isEmpty()) {
      cmd.withWorkingDir(config.process().workingDir());
    }
    try {
      String id = cmd.exec().getId();
      log.debug("DockerRuntime: created {} ({})", config.name(), id);
      negativeOom.created(id, oomScoreAdj);
      if (oomScoreAdj < 0) {
        createdAdj.put(id, oomScoreAdj);
      }
      return id;
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, Kind.CREATE);
    }
  }

  /** The config's labels, plus the sandbox id and the container type (dockershim's). */
  private static Map<String, String> labels(String sandboxId, ContainerConfig config) {
    Map<String, String> labels = new HashMap<>(config.labels());
    labels.put(Labels.SANDBOX_ID, sandboxId);
    labels.putIfAbsent(Labels.DOCKER_TYPE, Labels.TYPE_CONTAINER);
    return labels;
  }

  /** dockershim's bind propagation: none is Docker's default (rprivate). */
  private static PropagationMode propagation(ContainerConfig.Propagation p) {
    return switch (p) {
      case PRIVATE -> PropagationMode.DEFAULT_MODE;
      case HOST_TO_CONTAINER -> PropagationMode.RSLAVE;
      case BIDIRECTIONAL -> PropagationMode.RSHARED;
    };
  }

  /** Joins the sandbox's namespaces; binds the mounts; sets the cgroup limits and parent. */
  private static HostConfig hostConfig(String sandboxId, ContainerConfig config) {
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
                          m.readOnly() ? AccessMode.ro : AccessMode.rw,
                          SELContext.none,
                          null,
                          propagation(m.propagation())))
              .toList());
    }
    ContainerConfig.Resources res = config.linux().resources();
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
    if (!config.linux().cgroupParent().isEmpty()) {
      host.withCgroupParent(config.linux().cgroupParent()); // the pod's cgroup, beside its sandbox
    }
    return host;
  }

  /** Starts a container; one that already runs is fine. Failures are {@code START}. */
  void start(String containerId) {
    Integer adj = createdAdj.remove(containerId);
    try {
      api.startContainerCmd(containerId).exec();
      negativeOom.started(containerId);
    } catch (RuntimeException e) {
      if (!DockerErrors.isNotModified(e)) { // 304: already running
        RuntimeError error = DockerErrors.translate(e, Kind.START);
        if (adj != null && negativeOom.failed(containerId, adj)) {
          throw Errors.withCause(
              new RuntimeError(
                  Kind.START,
                  error.getMessage()
                      + " (the runtime refused oom_score_adj="
                      + adj
                      + "; the next attempt uses 0)"),
              e);
        }
        throw error;
      }
    }
  }

  /**
   * SIGTERM, then SIGKILL after the grace period rounded up to whole seconds (never cut short). A
   * container that is stopped or gone is fine.
   */
  void stop(String containerId, Duration grace) {
    long millis = grace == null || grace.isNegative() ? 0 : grace.toMillis();
    int seconds = clampToInt((millis + 999) / 1000);
    try {
      // On the long client: the engine answers once the container is gone (see DockerRuntime).
      longCalls.stopContainerCmd(containerId).withTimeout(seconds).exec();
    } catch (RuntimeException e) {
      if (!DockerErrors.isNotModified(e) && !DockerErrors.isNotFound(e)) {
        throw DockerErrors.translate(e, null);
      }
    }
  }

  /**
   * Removes a container (by id or name) with its anonymous volumes, forcibly if it runs. A missing
   * container, or one whose removal is already under way, is fine.
   */
  void remove(String idOrName) {
    try {
      api.removeContainerCmd(idOrName).withForce(true).withRemoveVolumes(true).exec();
    } catch (RuntimeException e) {
      if (!DockerErrors.isNotFound(e) && !DockerErrors.isRemovalInProgress(e)) {
        throw DockerErrors.translate(e, null);
      }
    }
  }

  /** {@link #remove}, logging a failure instead of throwing it: for clean-ups. */
  void removeQuietly(String idOrName) {
    try {
      remove(idOrName);
    } catch (RuntimeError e) {
      log.warn("DockerRuntime: could not remove {}: {}", idOrName, e.getMessage());
    }
  }

  static int clampToInt(long v) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(Integer.MIN_VALUE, v));
  }
}
