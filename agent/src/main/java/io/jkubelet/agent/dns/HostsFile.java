package io.jkubelet.agent.dns;

import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The kubelet-managed {@code /etc/hosts} of a pod's containers, as upstream's {@code
 * ensureHostsFile}: localhost, the pod's IPs with its hostname (and FQDN when it has a subdomain)
 * and its {@code hostAliases}; a host-network pod gets the node's hosts file with the aliases. It
 * lives at {@code <pod-dir>/etc-hosts} and is bind-mounted into every container that does not mount
 * its own {@code /etc/hosts}.
 *
 * <p>Thread-safe: stateless.
 */
public final class HostsFile {
  /** Where containers see it. */
  public static final String CONTAINER_PATH = "/etc/hosts";

  private static final String HEADER = "# Kubernetes-managed hosts file.\n";
  private static final String HEADER_HOST_NETWORK =
      "# Kubernetes-managed hosts file (host network).\n";

  private HostsFile() {}

  /**
   * Writes the pod's hosts file and returns its path.
   *
   * @param nodeHosts the node's hosts file, for host-network pods
   */
  public static Path ensure(
      Path podDir, Pod pod, List<String> podIps, PodHostname name, Path nodeHosts)
      throws IOException {
    String content =
        Boolean.TRUE.equals(pod.getSpec().getHostNetwork())
            ? HEADER_HOST_NETWORK
                + Files.readString(nodeHosts)
                + aliases(pod.getSpec().getHostAliases())
            : managed(podIps, name.hostname(), name.domain(), pod.getSpec().getHostAliases());
    Path file = podDir.resolve("etc-hosts");
    Files.createDirectories(podDir);
    Files.writeString(file, content);
    return file;
  }

  static String managed(
      List<String> podIps, String hostname, String hostDomain, List<HostAlias> aliases) {
    StringBuilder b = new StringBuilder(HEADER);
    b.append("127.0.0.1\tlocalhost\n");
    b.append("::1\tlocalhost ip6-localhost ip6-loopback\n");
    b.append("fe00::0\tip6-localnet\n");
    b.append("fe00::0\tip6-mcastprefix\n");
    b.append("fe00::1\tip6-allnodes\n");
    b.append("fe00::2\tip6-allrouters\n");
    for (String ip : podIps) {
      if (hostDomain.isEmpty()) {
        b.append(ip).append('\t').append(hostname).append('\n');
      } else {
        b.append(ip)
            .append('\t')
            .append(hostname)
            .append('.')
            .append(hostDomain)
            .append('\t')
            .append(hostname)
            .append('\n');
      }
    }
    return b.append(aliases(aliases)).toString();
  }

  private static String aliases(List<HostAlias> aliases) {
    if (aliases == null || aliases.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("\n# Entries added by HostAliases.\n");
    for (HostAlias a : aliases) {
      b.append(a.getIp())
          .append('\t')
          .append(String.join("\t", a.getHostnames() == null ? List.of() : a.getHostnames()))
          .append('\n');
    }
    return b.toString();
  }
}
