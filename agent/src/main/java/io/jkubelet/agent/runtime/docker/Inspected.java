package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerConfig;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.NetworkSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What jkubelet reads of a container inspect ({@code GET /containers/{id}/json}), whoever parsed
 * it: {@link ContainerInspect} straight from the engine's answer, or {@link #of} from docker-java's
 * {@link InspectContainerResponse}. {@link InspectMapping} maps it to the {@code runtime} records.
 *
 * @param id {@code Id}
 * @param name {@code Name} (with its leading slash)
 * @param created {@code Created}, as the engine wrote it; null when absent
 * @param imageId {@code Image}: the image's id; null when absent
 * @param state {@code State}; null when absent
 * @param network its network mode and addresses
 * @param config what of {@code Config} jkubelet reads
 * @param mounts {@code Mounts}, never null
 */
record Inspected(
    String id,
    String name,
    String created,
    String imageId,
    State state,
    Network network,
    Config config,
    List<Mount> mounts) {

  Inspected {
    mounts = mounts == null ? List.of() : mounts;
  }

  /**
   * The network part.
   *
   * @param mode {@code HostConfig.NetworkMode}; null when absent
   * @param ipAddress {@code NetworkSettings.IPAddress} (deprecated by the engine); null when absent
   * @param ips {@code NetworkSettings.Networks}: each network's {@code IPAddress} (null when it has
   *     none), in the engine's order; never null
   */
  record Network(String mode, String ipAddress, Map<String, String> ips) {
    Network {
      ips = ips == null ? Map.of() : ips;
    }
  }

  /**
   * The {@code Config} part.
   *
   * @param image {@code Config.Image}: the image as the container was created with it
   * @param labels {@code Config.Labels}, never null
   * @param tty {@code Config.Tty}: whether the container has a terminal (its output then one
   *     stream, not multiplexed)
   */
  record Config(String image, Map<String, String> labels, boolean tty) {
    Config {
      labels = labels == null ? Map.of() : labels;
    }
  }

  /** {@code Config.Labels}, never null. */
  Map<String, String> labels() {
    return config.labels();
  }

  /**
   * {@code State}: absent booleans are false, absent texts null.
   *
   * @param exitCode {@code ExitCode}; null when absent
   * @param pid {@code Pid}, the main process on the host; 0 when it does not run or is absent
   */
  record State(
      boolean running,
      boolean dead,
      boolean oomKilled,
      Long exitCode,
      String error,
      String startedAt,
      String finishedAt,
      long pid) {}

  /** One of {@code Mounts}: where on the host ({@code Source}) is seen where in the container. */
  record Mount(String source, String destination) {}

  /** docker-java's answer, as jkubelet reads it. */
  static Inspected of(InspectContainerResponse r) {
    var s = r.getState();
    State state =
        s == null
            ? null
            : new State(
                Boolean.TRUE.equals(s.getRunning()),
                Boolean.TRUE.equals(s.getDead()),
                Boolean.TRUE.equals(s.getOOMKilled()),
                s.getExitCodeLong(),
                s.getError(),
                s.getStartedAt(),
                s.getFinishedAt(),
                s.getPidLong() == null ? 0 : s.getPidLong());
    NetworkSettings n = r.getNetworkSettings();
    Map<String, String> ips = new LinkedHashMap<>();
    if (n != null && n.getNetworks() != null) {
      for (Map.Entry<String, ContainerNetwork> e : n.getNetworks().entrySet()) {
        ips.put(e.getKey(), e.getValue() == null ? null : e.getValue().getIpAddress());
      }
    }
    List<Mount> mounts =
        r.getMounts() == null
            ? List.of()
            : r.getMounts().stream()
                .map(
                    m ->
                        new Mount(
                            m.getSource(),
                            m.getDestination() == null ? null : m.getDestination().getPath()))
                .toList();
    var config = r.getConfig();
    return new Inspected(
        r.getId(),
        r.getName(),
        r.getCreated(),
        r.getImageId(),
        state,
        new Network(
            r.getHostConfig() == null ? null : r.getHostConfig().getNetworkMode(),
            n == null ? null : deprecatedIp(n),
            ips),
        new Config(
            config == null ? null : config.getImage(),
            config == null ? null : config.getLabels(),
            tty(config)),
        mounts);
  }

  /** {@code Config.Tty} of docker-java's answer: false when absent. */
  static boolean tty(ContainerConfig config) {
    return config != null && Boolean.TRUE.equals(config.getTty());
  }

  @SuppressWarnings("deprecation")
  private static String deprecatedIp(NetworkSettings n) {
    return n.getIpAddress();
  }
}
