package io.jkubelet.agent.cli;

import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The network plugin's flags (a picocli mixin of {@code run}), upstream's container-runtime flags:
 * {@code --network-plugin} and the CNI directories, kubenet's MTU and masquerade range. The two
 * that are settings ({@code --hairpin-mode}, {@code --pod-cidr}) come from {@code
 * NetworkSettings}'s declarations.
 */
final class NetworkFlags {
  @Option(
      names = "--network-plugin",
      paramLabel = "NAME",
      description =
          "cni or kubenet: a network plugin gives each pod its network. Empty (the default):"
              + " Docker's bridge.")
  String plugin = "";

  @Option(
      names = "--cni-conf-dir",
      paramLabel = "DIR",
      description = "The CNI configuration directory (default /etc/cni/net.d).")
  Path confDir = NetworkOptions.NONE.confDir();

  @Option(
      names = "--cni-bin-dir",
      paramLabel = "DIR,...",
      description = "Where CNI plugin binaries are, comma-separated (default /opt/cni/bin).")
  String binDirs = "/opt/cni/bin";

  @Option(
      names = "--cni-cache-dir",
      paramLabel = "DIR",
      description = "libcni's cache: each pod's attachment (default /var/lib/cni/cache).")
  Path cacheDir = NetworkOptions.NONE.cacheDir();

  @Option(
      names = "--network-plugin-mtu",
      paramLabel = "N",
      description = "kubenet's MTU; 0 (the default) picks the host's smallest.")
  int mtu;

  @Option(
      names = "--non-masquerade-cidr",
      paramLabel = "CIDR",
      description = "kubenet masquerades traffic leaving this range (default 10.0.0.0/8).")
  String nonMasqueradeCidr = NetworkOptions.NONE.nonMasqueradeCidr();

  @Option(
      names = "--cni-exec-timeout",
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description = "How long one CNI plugin call may take (default 220s, as upstream).")
  Duration execTimeout = NetworkOptions.DEFAULT_EXEC_TIMEOUT;

  /** The plugin's options; an error names the flag or the field. */
  NetworkOptions options(KubeletConfiguration config) {
    String cidrs = config.network().podCIDR();
    return new NetworkOptions(
        plugin.strip(),
        confDir.toAbsolutePath(),
        Arrays.stream(binDirs.split(","))
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .map(Path::of)
            .toList(),
        cacheDir.toAbsolutePath(),
        mtu,
        config.network().hairpinMode(),
        nonMasqueradeCidr,
        cidrs.isBlank() ? List.of() : Arrays.stream(cidrs.split(",")).map(String::strip).toList(),
        execTimeout);
  }
}
