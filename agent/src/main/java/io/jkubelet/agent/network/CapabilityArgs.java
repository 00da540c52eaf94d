package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * The capability arguments dockershim gives every pod; libcni passes each to the plugins that
 * declare it, as their {@code runtimeConfig}.
 *
 * <ul>
 *   <li>{@code portMappings}: each host port (hostPort &gt; 0) with its container port, lower-case
 *       protocol and host IP;
 *   <li>{@code bandwidth}: from the {@code kubernetes.io/ingress-bandwidth} and {@code
 *       egress-bandwidth} annotations, in bit/s, bursts of {@code math.MaxInt32};
 *   <li>{@code ipRanges}: the node's pod CIDRs, one range set per family.
 * </ul>
 */
final class CapabilityArgs {
  static final String INGRESS = "kubernetes.io/ingress-bandwidth";
  static final String EGRESS = "kubernetes.io/egress-bandwidth";
  private static final BigDecimal MIN = BigDecimal.valueOf(1000);
  private static final BigDecimal MAX = new BigDecimal("1e15");

  private CapabilityArgs() {}

  static ObjectNode of(SandboxConfig config, List<String> podCidrs) throws CniException {
    ObjectNode args = CniExec.JSON.createObjectNode();
    ArrayNode ports = args.putArray("portMappings");
    for (SandboxConfig.PortMapping p : config.network().ports()) {
      if (p.hostPort() <= 0) {
        continue;
      }
      ObjectNode m = ports.addObject();
      m.put("hostPort", p.hostPort());
      m.put("containerPort", p.containerPort());
      m.put("protocol", (p.protocol() == null ? "tcp" : p.protocol()).toLowerCase(Locale.ROOT));
      m.put("hostIP", p.hostIp() == null ? "" : p.hostIp());
    }
    Long ingress = bandwidth(config, INGRESS);
    Long egress = bandwidth(config, EGRESS);
    if (ingress != null || egress != null) {
      ObjectNode b = args.putObject("bandwidth");
      if (ingress != null) {
        b.put("ingressRate", ingress);
        b.put("ingressBurst", Integer.MAX_VALUE);
      }
      if (egress != null) {
        b.put("egressRate", egress);
        b.put("egressBurst", Integer.MAX_VALUE);
      }
    }
    ArrayNode ranges = args.putArray("ipRanges");
    for (String cidr : podCidrs) {
      ranges.addArray().addObject().put("subnet", cidr);
    }
    return args;
  }

  private static Long bandwidth(SandboxConfig config, String annotation) throws CniException {
    String value = config.annotations().get(annotation);
    if (value == null) {
      return null;
    }
    BigDecimal bits;
    try {
      bits = Quantity.getAmountInBytes(new Quantity(value));
    } catch (RuntimeException e) {
      throw new CniException(
          "failed to get pod bandwidth from annotations: "
              + annotation
              + " \""
              + value
              + "\" is not a quantity");
    }
    if (bits.compareTo(MIN) < 0) {
      throw new CniException(
          "failed to get pod bandwidth from annotations: resource is unreasonably small (< 1kbit)");
    }
    if (bits.compareTo(MAX) > 0) {
      throw new CniException(
          "failed to get pod bandwidth from annotations: resource is unreasonably large (> 1Pbit)");
    }
    return bits.longValue();
  }
}
