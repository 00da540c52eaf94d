package io.jkubelet.agent.prober;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ExecAction;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.TCPSocketAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Builds validated {@link Prober}s from probe definitions. Stateless and thread-safe. */
public final class Probers {
  private Probers() {}

  /**
   * Why a gRPC probe is refused: no gRPC library is among ours (and the API servers jkubelet is
   * tested with, v1.20, drop the field).
   */
  static final String GRPC_UNSUPPORTED =
      "grpc probes are not supported by jkubelet; use exec, httpGet or tcpSocket";

  /**
   * Validates a probe definition of a container and builds its prober. Named ports are resolved
   * here from the container's {@code ports}.
   *
   * @param execRunner runs exec probes
   * @param httpClient runs HTTP probes
   * @return the prober and its settings, or an {@link ProbeDefinition.InvalidProbe} saying what is
   *     wrong
   */
  public static ProbeDefinition of(
      Probe probe, Container container, ExecRunner execRunner, ProbeHttp httpClient) {
    if (probe == null) {
      return invalid("no probe");
    }
    ProbeSettings settings;
    try {
      settings = ProbeSettings.of(probe);
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
    List<String> handlers = new ArrayList<>();
    if (probe.getExec() != null) handlers.add("exec");
    if (probe.getHttpGet() != null) handlers.add("httpGet");
    if (probe.getTcpSocket() != null) handlers.add("tcpSocket");
    if (probe.getGrpc() != null) handlers.add("grpc");
    if (handlers.isEmpty()) {
      return invalid("must specify a handler type (exec, httpGet, tcpSocket or grpc)");
    }
    if (handlers.size() > 1) {
      return invalid("may not specify more than 1 handler type, got " + handlers);
    }
    if (handlers.get(0).equals("grpc")) {
      return new ProbeDefinition.InvalidProbe(GRPC_UNSUPPORTED);
    }
    try {
      Prober prober =
          switch (handlers.get(0)) {
            case "exec" -> exec(probe.getExec(), execRunner);
            case "httpGet" -> httpGet(probe.getHttpGet(), container, httpClient);
            default -> tcpSocket(probe.getTcpSocket(), container);
          };
      return new ProbeDefinition.Valid(prober, settings);
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  /**
   * An exec handler, for probes and lifecycle hooks.
   *
   * @throws IllegalArgumentException when the command is empty
   */
  public static Prober.ExecProber exec(ExecAction a, ExecRunner runner) {
    List<String> command = a.getCommand() == null ? List.of() : a.getCommand();
    if (command.isEmpty()) {
      throw new IllegalArgumentException("exec.command: must not be empty");
    }
    if (runner == null) {
      throw new IllegalArgumentException("exec: no exec runner configured");
    }
    return new Prober.ExecProber(command, runner);
  }

  /**
   * An HTTP GET handler, for probes and lifecycle hooks; named ports resolve from the container.
   *
   * @throws IllegalArgumentException for a bad port, scheme or header
   */
  public static Prober.HttpGetProber httpGet(HTTPGetAction a, Container c, ProbeHttp client) {
    int port = port("httpGet.port", a.getPort(), c);
    Prober.Scheme scheme;
    String s = a.getScheme() == null || a.getScheme().isEmpty() ? "HTTP" : a.getScheme();
    try {
      scheme = Prober.Scheme.valueOf(s.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "httpGet.scheme: unsupported value \"" + s + "\": must be HTTP or HTTPS");
    }
    List<Prober.Header> headers = new ArrayList<>();
    if (a.getHttpHeaders() != null) {
      for (HTTPHeader h : a.getHttpHeaders()) {
        if (h.getName() == null || h.getName().isBlank()) {
          throw new IllegalArgumentException("httpGet.httpHeaders: a header has no name");
        }
        headers.add(new Prober.Header(h.getName(), h.getValue()));
      }
    }
    if (client == null) {
      throw new IllegalArgumentException("httpGet: no HTTP client configured");
    }
    return new Prober.HttpGetProber(scheme, a.getHost(), port, a.getPath(), headers, client);
  }

  private static Prober tcpSocket(TCPSocketAction a, Container c) {
    return new Prober.TcpSocketProber(a.getHost(), port("tcpSocket.port", a.getPort(), c));
  }

  /**
   * A port number, or a named port resolved from the container's ports, as upstream {@code
   * extractPort} (which also accepts a number written as a string).
   */
  static int port(String field, IntOrString port, Container c) {
    if (port == null || (port.getIntVal() == null && port.getStrVal() == null)) {
      throw new IllegalArgumentException(field + ": required");
    }
    if (port.getIntVal() != null) {
      return checkRange(field, port.getIntVal());
    }
    String name = port.getStrVal();
    if (c != null && c.getPorts() != null) {
      for (ContainerPort p : c.getPorts()) {
        if (name.equals(p.getName()) && p.getContainerPort() != null) {
          return checkRange(field, p.getContainerPort());
        }
      }
    }
    try {
      return checkRange(field, Integer.parseInt(name));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          field
              + ": named port \""
              + name
              + "\" not found in the ports of container \""
              + (c == null ? "" : c.getName())
              + "\"");
    }
  }

  private static int checkRange(String field, int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          field + ": port " + port + " out of range: must be between 1 and 65535, inclusive");
    }
    return port;
  }

  private static ProbeDefinition invalid(String message) {
    return new ProbeDefinition.InvalidProbe("invalid probe: " + message);
  }
}
