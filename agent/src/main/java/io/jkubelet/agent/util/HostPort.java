package io.jkubelet.agent.util;

/**
 * A host as a URL or a {@code Host} header writes it: an IPv6 address in brackets, as Go's {@code
 * net.JoinHostPort} does.
 */
public final class HostPort {
  private HostPort() {}

  /** {@code host}, bracketed when it is an IPv6 address not bracketed yet; null stays null. */
  public static String host(String host) {
    return host != null && host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  /** {@code host:port}, the host as {@link #host} writes it. */
  public static String join(String host, int port) {
    return host(host) + ":" + port;
  }
}
