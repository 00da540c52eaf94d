package io.jkubelet.agent.admission;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Host port conflicts, as upstream's {@code NodePorts} predicate ({@code
 * HostPortInfo.CheckConflict}) at admission: a wanted (host IP, protocol, port) conflicts with a
 * used one of the same protocol and port when either IP is {@code 0.0.0.0} (also an empty host IP)
 * or both are the same. Only the app containers' ports count, as upstream's. A pure function.
 */
final class HostPorts {
  /** Upstream's predicate name, the pod's rejection reason. */
  static final String REASON = "NodePorts";

  private static final String ANY = "0.0.0.0";

  private HostPorts() {}

  private record Binding(String ip, String protocol, int port) {
    boolean conflicts(Binding other) {
      return port == other.port
          && protocol.equals(other.protocol)
          && (ip.equals(ANY) || other.ip.equals(ANY) || ip.equals(other.ip));
    }
  }

  /** Whether a host port of {@code pod} is taken by one of the {@code admitted} pods. */
  static boolean conflict(Pod pod, List<Pod> admitted) {
    List<Binding> wanted = bindings(pod);
    if (wanted.isEmpty()) {
      return false;
    }
    for (Pod other : admitted) {
      for (Binding used : bindings(other)) {
        if (wanted.stream().anyMatch(w -> w.conflicts(used))) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<Binding> bindings(Pod pod) {
    List<Binding> out = new ArrayList<>();
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return out;
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (p.getHostPort() == null || p.getHostPort() <= 0) {
          continue;
        }
        String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? ANY : p.getHostIP();
        String protocol =
            p.getProtocol() == null || p.getProtocol().isEmpty()
                ? "TCP"
                : p.getProtocol().toUpperCase(Locale.ROOT);
        out.add(new Binding(ip, protocol, p.getHostPort()));
      }
    }
    return out;
  }
}
