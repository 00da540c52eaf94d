package io.jkubelet.agent.network;

import io.jkubelet.config.ConfigException;
import io.jkubelet.config.NetworkSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The network plugin's settings, as upstream's container-runtime flags and the two configuration
 * fields ({@code hairpinMode}, {@code podCIDR}). Validated in the constructor.
 *
 * @param plugin {@code cni}, {@code kubenet}, or "" for Docker's own bridge
 * @param cni where the CNI plugins, their configuration and their cache are, and their timeout
 * @param mtu kubenet's MTU; 0 picks one from the host
 * @param hairpinMode {@code promiscuous-bridge}, {@code hairpin-veth} or {@code none}
 * @param nonMasqueradeCidr kubenet masquerades traffic leaving this range
 * @param podCidr a standalone node's pod CIDRs (comma-separated in the flag); a Node's {@code
 *     spec.podCIDRs} win
 */
public record NetworkOptions(
    String plugin,
    Cni cni,
    int mtu,
    String hairpinMode,
    String nonMasqueradeCidr,
    List<String> podCidr) {

  public static final String CNI = "cni";
  public static final String KUBENET = "kubenet";
  public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofSeconds(220);

  /** Docker's bridge, the standalone default. */
  public static final NetworkOptions NONE =
      new NetworkOptions(
          "",
          new Cni(
              Path.of("/etc/cni/net.d"),
              List.of(Path.of("/opt/cni/bin"), Path.of("/usr/lib/cni")),
              Path.of("/var/lib/cni/cache"),
              DEFAULT_EXEC_TIMEOUT),
          0,
          NetworkSettings.PROMISCUOUS_BRIDGE,
          "10.0.0.0/8",
          List.of());

  /**
   * Where CNI's parts are.
   *
   * @param confDir the CNI configuration directory
   * @param binDirs where CNI plugin binaries are looked for, in order
   * @param cacheDir libcni's cache: the pods' attachments
   * @param execTimeout how long one plugin call may take (upstream: 220 s)
   */
  public record Cni(Path confDir, List<Path> binDirs, Path cacheDir, Duration execTimeout) {
    public Cni {
      binDirs = List.copyOf(binDirs);
      if (binDirs.isEmpty()) {
        throw new ConfigException("--cni-bin-dir", "must name at least one directory");
      }
      if (execTimeout.isNegative() || execTimeout.isZero()) {
        throw new ConfigException(
            "--cni-exec-timeout", "must be greater than 0, got " + execTimeout);
      }
    }
  }

  public NetworkOptions {
    Objects.requireNonNull(cni, "cni");
    podCidr = List.copyOf(podCidr);
    if (!Set.of("", CNI, KUBENET).contains(plugin)) {
      throw new ConfigException("--network-plugin", "network plugin \"" + plugin + "\" not found");
    }
    if (!Set.of(
            NetworkSettings.PROMISCUOUS_BRIDGE,
            NetworkSettings.HAIRPIN_VETH,
            NetworkSettings.HAIRPIN_NONE)
        .contains(hairpinMode)) {
      throw new ConfigException(
          "hairpinMode",
          "must be promiscuous-bridge, hairpin-veth or none, got \"" + hairpinMode + "\"");
    }
    if (mtu < 0) {
      throw new ConfigException("--network-plugin-mtu", "must not be negative, got " + mtu);
    }
    cidr("--non-masquerade-cidr", nonMasqueradeCidr);
    for (String c : podCidr) {
      cidr("podCIDR", c);
    }
  }

  /** Whether a plugin gives pods their network (not Docker's bridge). */
  public boolean enabled() {
    return !plugin.isEmpty();
  }

  private static void cidr(String field, String cidr) {
    if (!cidr.matches("[0-9.]+/[0-9]{1,2}") && !cidr.matches("[0-9a-fA-F:.]+/[0-9]{1,3}")) {
      throw new ConfigException(field, "\"" + cidr + "\" is not a CIDR");
    }
  }
}
