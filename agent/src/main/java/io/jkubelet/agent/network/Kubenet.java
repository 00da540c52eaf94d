package io.jkubelet.agent.network;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jkubelet.config.NetworkSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kubenet, as dockershim's {@code kubenetNetworkPlugin}, on the CNI plugins of {@code
 * --cni-bin-dir}: a {@code cbr0} bridge that is the pods' gateway, {@code host-local} addresses
 * from the node's pod CIDRs, hairpin as {@code --hairpin-mode} says, the MTU of {@code
 * --network-plugin-mtu} (0: the smallest of the host's up interfaces, else 1460), host ports by
 * {@code portmap}, and one MASQUERADE rule for traffic that leaves {@code --non-masquerade-cidr}.
 *
 * <p>Differences from upstream, where the CNI plugins now do what kubenet did by hand: host ports
 * are {@code portmap}'s chains, not kubenet's {@code KUBE-HOSTPORTS}; promiscuous-bridge sets the
 * bridge's promiscuous mode through the bridge plugin, without upstream's ebtables de-duplication.
 */
final class Kubenet implements NetworkSource {
  private static final Logger log = LoggerFactory.getLogger(Kubenet.class);
  static final String BRIDGE = "cbr0";
  static final String NAME = "kubenet";
  static final int DEFAULT_MTU = 1460;

  private final CniExec exec;
  private final NetworkOptions options;
  private volatile boolean masquerading;

  /**
   * @param options its MTU, hairpin mode and non-masquerade range
   */
  Kubenet(CniExec exec, NetworkOptions options) {
    this.exec = exec;
    this.options = options;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String uninitialized() {
    return "kubenet does not have netConfig. This is most likely due to lack of PodCIDR";
  }

  @Override
  public ConfDir.Choice read(List<String> podCidrs) {
    if (podCidrs.isEmpty()) {
      return new ConfDir.Choice(null, List.of());
    }
    NetworkList list =
        NetworkList.parseList(
            NAME,
            config(podCidrs, effectiveMtu(), options.hairpinMode(), hasFirewall())
                .getBytes(StandardCharsets.UTF_8));
    try {
      ConfDir.validate(list, exec);
    } catch (CniException e) {
      return new ConfDir.Choice(null, List.of(new ConfDir.Rejected(NAME, e.getMessage())));
    }
    if (!masquerading) {
      masquerading = ensureMasquerade();
    }
    return new ConfDir.Choice(list, List.of());
  }

  private boolean hasFirewall() {
    try {
      exec.find("firewall");
      return true;
    } catch (CniException e) {
      return false;
    }
  }

  /**
   * The network: bridge (with host-local), then portmap, then (when its binary is there) firewall,
   * which accepts the pods' traffic in the FORWARD chain that Docker's policy drops (upstream
   * leaves that to kube-proxy's {@code --cluster-cidr}).
   */
  static String config(List<String> podCidrs, int mtu, String hairpinMode, boolean firewall) {
    ObjectNode list = CniExec.JSON.createObjectNode();
    list.put("cniVersion", "0.4.0");
    list.put("name", NAME);
    ArrayNode plugins = list.putArray("plugins");
    ObjectNode bridge = plugins.addObject();
    bridge.put("type", "bridge");
    bridge.put("bridge", BRIDGE);
    bridge.put("mtu", mtu);
    bridge.put("isGateway", true);
    bridge.put("ipMasq", false);
    bridge.put("hairpinMode", NetworkSettings.HAIRPIN_VETH.equals(hairpinMode));
    bridge.put("promiscMode", NetworkSettings.PROMISCUOUS_BRIDGE.equals(hairpinMode));
    ObjectNode ipam = bridge.putObject("ipam");
    ipam.put("type", "host-local");
    ArrayNode ranges = ipam.putArray("ranges");
    ArrayNode routes = ipam.putArray("routes");
    for (String cidr : podCidrs) {
      ranges.addArray().addObject().put("subnet", cidr);
      routes.addObject().put("dst", cidr.contains(":") ? "::/0" : "0.0.0.0/0");
    }
    ObjectNode portmap = plugins.addObject();
    portmap.put("type", "portmap");
    portmap.putObject("capabilities").put("portMappings", true);
    portmap.put("snat", true);
    if (firewall) {
      plugins.addObject().put("type", "firewall");
    }
    return list.toString();
  }

  private int effectiveMtu() {
    return options.mtu() > 0 ? options.mtu() : smallestHostMtu();
  }

  /** The smallest MTU of the host's up, non-loopback interfaces, else 1460, as upstream. */
  static int smallestHostMtu() {
    int smallest = Integer.MAX_VALUE;
    try (Stream<Path> ifs = Files.list(Path.of("/sys/class/net"))) {
      for (Path i : ifs.toList()) {
        try {
          int flags = Integer.decode(Files.readString(i.resolve("flags")).strip());
          boolean up = (flags & 0x1) != 0;
          boolean loopback = (flags & 0x8) != 0;
          if (up && !loopback) {
            smallest =
                Math.min(smallest, Integer.parseInt(Files.readString(i.resolve("mtu")).strip()));
          }
        } catch (IOException | NumberFormatException e) {
          // An interface that went away, or one without these files.
        }
      }
    } catch (IOException e) {
      return DEFAULT_MTU;
    }
    return smallest == Integer.MAX_VALUE ? DEFAULT_MTU : smallest;
  }

  /**
   * kubenet's one NAT rule: what leaves the non-masquerade CIDR for a non-local address is
   * masqueraded. Added once; a failure is logged and tried again at the next read.
   */
  private boolean ensureMasquerade() {
    List<String> rule =
        List.of(
            "POSTROUTING",
            "-m",
            "comment",
            "--comment",
            "kubenet: SNAT for outbound traffic from cluster",
            "-m",
            "addrtype",
            "!",
            "--dst-type",
            "LOCAL",
            "!",
            "-d",
            options.nonMasqueradeCidr(),
            "-j",
            "MASQUERADE");
    if (iptables("-C", rule) == 0) {
      return true;
    }
    if (iptables("-A", rule) == 0) {
      log.info("Network: kubenet masquerades traffic leaving {}", options.nonMasqueradeCidr());
      return true;
    }
    return false;
  }

  private static int iptables(String op, List<String> rule) {
    List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "-t", "nat", op));
    cmd.addAll(rule);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      if (p.exitValue() != 0 && op.equals("-A")) {
        log.warn("Network: kubenet cannot add its MASQUERADE rule: {}", out.strip());
      }
      return p.exitValue();
    } catch (IOException e) {
      log.warn("Network: kubenet cannot run iptables: {}", e.getMessage());
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
