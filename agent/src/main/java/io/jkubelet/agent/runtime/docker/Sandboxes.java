package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.InternetProtocol;
import com.github.dockerjava.api.model.Ports;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs pod sandboxes: a pause container named {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>} that owns
 * the pod's network namespace, its host ports and a shareable IPC namespace.
 *
 * <p>Thread-safe: what the host allows of a negative {@code oom_score_adj} is the containers'
 * {@link NegativeOom}, which is.
 */
final class Sandboxes {
  private static final Logger log = LoggerFactory.getLogger(Sandboxes.class);

  private final DockerClient api;
  private final Containers containers;

  Sandboxes(DockerClients clients, Containers containers) {
    this.api = clients.api();
    this.containers = containers;
  }

  /**
   * Creates and starts the sandbox; returns its id. A leftover container of the same name is
   * replaced. Some hosts (user namespaces, some sandboxes) refuse a negative {@code oom_score_adj},
   * and runc then fails the start with an opaque "can't get final child's PID from pipe: EOF": the
   * sandbox is then created again with 0, and later ones start with 0.
   */
  String run(SandboxConfig config) {
    String id = createAndStart(config);
    if (config.network().dns() != null && !config.network().dns().render().isEmpty()) {
      try {
        rewriteResolvConf(id, config.network().dns());
      } catch (IOException | RuntimeException e) {
        containers.removeQuietly(id);
        throw Errors.withCause(
            new RuntimeError(
                Kind.START,
                "rewrite resolv.conf failed for pod \""
                    + config.pod().name()
                    + "\": "
                    + e.getMessage()),
            e);
      }
    }
    return id;
  }

  /**
   * Replaces the resolv.conf the engine generated for the sandbox, as dockershim's {@code
   * rewriteResolvFile}: the app containers join the sandbox's network and share that file. (The
   * engine's own DNS options cannot express an empty or search-only file, hence the rewrite.) NOTE:
   * the engine's files are on this host: jkubelet runs next to its Docker.
   */
  private void rewriteResolvConf(String id, SandboxConfig.Dns dns) throws IOException {
    String path = api.inspectContainerCmd(id).exec().getResolvConfPath();
    if (path == null || path.isEmpty()) {
      throw new IOException("the engine reports no resolv.conf path");
    }
    Files.writeString(Path.of(path), dns.render());
  }

  private String createAndStart(SandboxConfig config) {
    int oomScoreAdj = containers.negativeOom.effective(config.linux().oomScoreAdj());
    String id = create(config, oomScoreAdj);
    RuntimeError failure;
    try {
      containers.start(id);
      if (oomScoreAdj < 0) {
        containers.negativeOom.allowed();
      }
      return id;
    } catch (RuntimeError e) {
      failure = e;
    }
    containers.removeQuietly(id);
    if (oomScoreAdj >= 0) {
      throw failure;
    }
    log.debug(
        "DockerRuntime: sandbox {} failed to start with oom_score_adj={}: {}",
        config.containerName(),
        oomScoreAdj,
        failure.getMessage());
    String retry = create(config, 0);
    try {
      containers.start(retry);
    } catch (RuntimeError e) {
      containers.removeQuietly(retry);
      throw e;
    }
    if (containers.negativeOom.refuse("sandbox", oomScoreAdj)) {
      log.warn(
          "DockerRuntime: sandbox {} started with oom_score_adj=0 (set podInfraOomScoreAdj: 0 to"
              + " silence)",
          config.containerName());
    }
    return retry;
  }

  /** See {@link io.jkubelet.agent.runtime.Runtime#sandboxNetNs}. */
  String netNs(String id) {
    long pid = pid(id);
    return pid <= 0 ? "" : "/proc/" + pid + "/ns/net";
  }

  /** The host pid of a running sandbox's main process; 0 when it does not run or does not exist. */
  private long pid(String id) {
    com.github.dockerjava.api.command.InspectContainerResponse inspected;
    try {
      inspected = api.inspectContainerCmd(id).exec();
    } catch (RuntimeException e) {
      if (DockerErrors.isNotFound(e)) {
        return 0;
      }
      throw DockerErrors.translate(e, Kind.OTHER);
    }
    var state = inspected.getState();
    Long pid = state == null ? null : state.getPidLong();
    if (state == null || !Boolean.TRUE.equals(state.getRunning()) || pid == null || pid <= 0) {
      return 0;
    }
    return pid;
  }

  /** Creates the sandbox container; a leftover of the same name is removed and creation retried. */
  private String create(SandboxConfig config, int oomScoreAdj) {
    try {
      return command(config, oomScoreAdj).exec().getId();
    } catch (RuntimeException e) {
      if (!DockerErrors.isConflict(e)) {
        throw DockerErrors.translate(e, Kind.CREATE);
      }
    }
    log.info(
        "DockerRuntime: removing leftover container {} to create the sandbox again",
        config.containerName());
    containers.removeQuietly(config.containerName());
    try {
      return command(config, oomScoreAdj).exec().getId();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, Kind.CREATE);
    }
  }

  private CreateContainerCmd command(SandboxConfig config, int oomScoreAdj) {
    HostConfig host = HostConfig.newHostConfig().withOomScoreAdj(oomScoreAdj);
    if (config.linux().cpuShares() > 0) {
      host.withCpuShares(Containers.clampToInt(config.linux().cpuShares()));
    }
    if (!config.linux().cgroupParent().isEmpty()) {
      host.withCgroupParent(config.linux().cgroupParent()); // the pod's cgroup, as dockershim's
    }
    CreateContainerCmd cmd =
        api.createContainerCmd(config.image())
            .withName(config.containerName())
            .withLabels(new HashMap<>(config.labels()));
    SecurityOptions.sandbox(config.linux().security(), cmd, host);
    if (config.network().hostNetwork()) {
      host.withNetworkMode("host"); // port mappings are meaningless on the host's network
    } else {
      if (config.hostname() != null && !config.hostname().isEmpty()) {
        cmd.withHostName(config.hostname());
      }
      if (config.network().pluginNetwork()) {
        host.withNetworkMode("none"); // the network plugin attaches it, host ports included
      } else {
        bindPorts(config.network().ports(), cmd, host);
      }
    }
    return cmd.withHostConfig(host);
  }

  /** The app containers share the sandbox's network namespace, so it owns the host ports. */
  private static void bindPorts(
      List<SandboxConfig.PortMapping> ports, CreateContainerCmd cmd, HostConfig host) {
    Ports bindings = new Ports();
    List<ExposedPort> exposed = new ArrayList<>();
    for (SandboxConfig.PortMapping pm : ports) {
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

  private static InternetProtocol protocol(String protocol) {
    if (protocol == null || protocol.isEmpty()) {
      return InternetProtocol.TCP;
    }
    return InternetProtocol.parse(protocol.toLowerCase(Locale.ROOT));
  }
}
