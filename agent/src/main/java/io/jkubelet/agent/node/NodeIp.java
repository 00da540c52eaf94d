package io.jkubelet.agent.node;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/** Finds the node's IP: the first IPv4 address of an up, non-loopback, non-virtual interface. */
public final class NodeIp {
  private NodeIp() {}

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
