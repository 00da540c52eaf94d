package io.jkubelet.agent.cli;

import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The flags of what pods get from their node (a picocli mixin of {@code run}): the sysctls they may
 * set and their DNS. Each overlays the configuration field named in its description when given.
 */
final class PodFlags {
  @Option(
      names = "--allowed-unsafe-sysctls",
      paramLabel = "NAME,...",
      split = ",",
      description =
          "Unsafe sysctls (or patterns ending in *) that pods may set, beyond the safe ones"
              + " (allowedUnsafeSysctls). Each must be namespaced (kernel.shm*, kernel.msg*,"
              + " kernel.sem, fs.mqueue.*, net.*).")
  List<String> allowedUnsafeSysctls;

  @Option(
      names = "--cluster-dns",
      paramLabel = "IP,...",
      split = ",",
      description = "DNS servers for ClusterFirst pods (clusterDNS).")
  List<String> clusterDns;

  @Option(
      names = "--cluster-domain",
      paramLabel = "DOMAIN",
      description = "The cluster's DNS domain, e.g. cluster.local (clusterDomain).")
  String clusterDomain;

  @Option(
      names = "--resolv-conf",
      paramLabel = "FILE",
      description =
          "The resolver file Default pods copy; \"\" gives them none (resolvConf, default"
              + " /etc/resolv.conf).")
  String resolvConf;

  /** Sets the fields of the flags that were given, remembering which flag set each. */
  void overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    RunCommand.overlay(
        flagOf,
        allowedUnsafeSysctls,
        "allowedUnsafeSysctls",
        "--allowed-unsafe-sysctls",
        b::allowedUnsafeSysctls);
    RunCommand.overlay(flagOf, clusterDns, "clusterDNS", "--cluster-dns", b::clusterDNS);
    RunCommand.overlay(
        flagOf, clusterDomain, "clusterDomain", "--cluster-domain", b::clusterDomain);
    RunCommand.overlay(flagOf, resolvConf, "resolvConf", "--resolv-conf", b::resolvConf);
  }

  /** The allowed sysctls, checked as upstream checks them at start-up. */
  static void checkSysctls(KubeletConfiguration config) {
    try {
      Sysctls.allowing(config.allowedUnsafeSysctls());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("allowedUnsafeSysctls", e.getMessage());
    }
  }
}
