package io.jkubelet.agent.certificates;

import io.fabric8.kubernetes.api.model.NodeAddress;
import java.net.InetAddress;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The subject alternative names a serving certificate is requested for, as upstream's {@code
 * addressesToHostnamesAndIPs} (pkg/kubelet/certificate/kubelet.go) makes them from the Node's
 * status addresses: {@code Hostname} as a DNS name (or an IP when it is one), {@code InternalIP}
 * and {@code ExternalIP} as IPs, {@code InternalDNS} and {@code ExternalDNS} as DNS names; empty
 * ones skipped, duplicates once, sorted. A client certificate has none ({@link #NONE}).
 *
 * @param dnsNames sorted, distinct
 * @param ips sorted, distinct, in their canonical text form
 */
record Sans(List<String> dnsNames, List<String> ips) {
  public static final Sans NONE = new Sans(List.of(), List.of());

  public Sans {
    dnsNames = List.copyOf(new TreeSet<>(dnsNames));
    ips = List.copyOf(new TreeSet<>(ips.stream().map(Sans::canonical).toList()));
  }

  public boolean isEmpty() {
    return dnsNames.isEmpty() && ips.isEmpty();
  }

  /** The names of a Node's status addresses, as upstream requests its serving certificate for. */
  public static Sans fromNodeAddresses(Collection<NodeAddress> addresses) {
    Set<String> dns = new TreeSet<>();
    Set<String> ips = new TreeSet<>();
    for (NodeAddress a : addresses == null ? List.<NodeAddress>of() : addresses) {
      String address = a.getAddress();
      if (address == null || address.isEmpty() || a.getType() == null) {
        continue;
      }
      switch (a.getType()) {
        case "Hostname" -> (isIp(address) ? ips : dns).add(address);
        case "InternalIP", "ExternalIP" -> {
          if (isIp(address)) {
            ips.add(address);
          }
        }
        case "InternalDNS", "ExternalDNS" -> dns.add(address);
        default -> {}
      }
    }
    return new Sans(List.copyOf(dns), List.copyOf(ips));
  }

  /** The certificate's DNS and IP SANs, read the same way. */
  public static Sans of(X509Certificate cert) {
    Set<String> dns = new TreeSet<>();
    Set<String> ips = new TreeSet<>();
    try {
      Collection<List<?>> names = cert.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> n : names) {
          int type = (Integer) n.get(0);
          if (type == 2) {
            dns.add(String.valueOf(n.get(1)));
          } else if (type == 7) {
            ips.add(String.valueOf(n.get(1)));
          }
        }
      }
    } catch (CertificateParsingException e) {
      return NONE;
    }
    return new Sans(List.copyOf(dns), List.copyOf(ips));
  }

  private static final java.util.regex.Pattern IPV4 =
      java.util.regex.Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}");
  private static final java.util.regex.Pattern IPV6 =
      java.util.regex.Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

  /** Whether it is an IPv4 or IPv6 literal (parsed, never resolved as a name). */
  static boolean isIp(String s) {
    return literal(s) != null;
  }

  private static InetAddress literal(String s) {
    // Only literals reach getByName, which parses them without a lookup.
    if (!IPV4.matcher(s).matches() && !IPV6.matcher(s).matches()) {
      return null;
    }
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      return null;
    }
  }

  /** One text form per address ({@code ::1} and {@code 0:0:0:0:0:0:0:1} are the same). */
  private static String canonical(String ip) {
    InetAddress a = literal(ip);
    if (a == null) {
      throw new IllegalArgumentException("not an IP address: " + ip);
    }
    return a.getHostAddress();
  }

  @Override
  public String toString() {
    return "DNS " + dnsNames + ", IP " + ips;
  }
}
