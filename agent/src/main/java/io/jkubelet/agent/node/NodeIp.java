package io.jkubelet.agent.node;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the node's IP (its {@code InternalIP}) when {@code --node-ip} is not given, in the order of
 * upstream's {@code NodeAddress} setter (pkg/kubelet/nodestatus/setters.go): the node's name when
 * it is an IP; else the first address the name resolves to that may be a node's IP (IPv4 first);
 * else an interface's address ({@link #detect}). A name that does not resolve is no error: the
 * interfaces answer then, as upstream's default-route interface does.
 */
public final class NodeIp {
  private static final Logger log = LoggerFactory.getLogger(NodeIp.class);
  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");

  private NodeIp() {}

  /** The IP of the node named {@code nodeName} on this host, logged with where it came from. */
  public static String forNode(String nodeName) {
    return choose(nodeName, NodeIp::lookup, localAddresses(), NodeIp::detect);
  }

  /**
   * As {@link #forNode}, with the resolver, this host's addresses and the interfaces' choice given.
   */
  static String choose(
      String nodeName,
      Function<String, List<InetAddress>> lookup,
      Set<InetAddress> local,
      Supplier<String> interfaces) {
    if (IPV4.matcher(nodeName).matches() || nodeName.contains(":")) {
      log.info("NodeIp: {}, the node's name", nodeName);
      return nodeName;
    }
    InetAddress chosen = null;
    for (InetAddress a : lookup.apply(nodeName)) {
      if (!valid(a, local)) {
        continue;
      }
      if (a instanceof Inet4Address) {
        chosen = a;
        break;
      }
      if (chosen == null) {
        chosen = a;
      }
    }
    if (chosen != null) {
      log.info("NodeIp: {}, an address of the node's name {}", chosen.getHostAddress(), nodeName);
      return chosen.getHostAddress();
    }
    String ip = interfaces.get();
    log.info(
        "NodeIp: {}, an interface's (the node's name {} resolves to no address of this host)",
        ip,
        nodeName);
    return ip;
  }

  /** Upstream's {@code validateNodeIP}: a unicast address that is one of this host's. */
  static boolean valid(InetAddress a, Set<InetAddress> local) {
    return !a.isLoopbackAddress()
        && !a.isMulticastAddress()
        && !a.isLinkLocalAddress()
        && !a.isAnyLocalAddress()
        && local.contains(a);
  }

  /** The name's addresses; none when it does not resolve. */
  private static List<InetAddress> lookup(String name) {
    try {
      return Arrays.asList(InetAddress.getAllByName(name));
    } catch (UnknownHostException | SecurityException e) {
      log.debug("NodeIp: {} does not resolve: {}", name, e.toString());
      return List.of();
    }
  }

  /** Every address of this host's interfaces. */
  private static Set<InetAddress> localAddresses() {
    Set<InetAddress> out = new HashSet<>();
    try {
      for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        out.addAll(Collections.list(nif.getInetAddresses()));
      }
    } catch (SocketException e) {
      log.debug("NodeIp: cannot list the interfaces: {}", e.toString());
    }
    return out;
  }

  /** The first IPv4 address of an up, non-loopback, non-virtual interface; else 127.0.0.1. */
  public static String detect() {
    try {
      List<NetworkInterface> ifaces = Collections.list(NetworkInterface.getNetworkInterfaces());
      ifaces.sort(Comparator.comparingInt(NetworkInterface::getIndex));
      for (NetworkInterface nif : ifaces) {
        String name = nif.getName();
        if (!nif.isUp()
            || nif.isLoopback()
            || nif.isVirtual()
            || name.startsWith("docker")
            || name.startsWith("veth")
            || name.startsWith("br-")) {
          continue;
        }
        for (InetAddress a : Collections.list(nif.getInetAddresses())) {
          if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
            return a.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // fall through
    }
    return "127.0.0.1";
  }
}
