package io.jkubelet.agent.prober;

import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.HostPort;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Objects;

/**
 * One probe handler, able to run one attempt. The kinds are records so that callers can switch over
 * them; build them with {@link Probers#of}, which validates the definition.
 *
 * <p>Thread-safe: records are immutable, and their collaborators ({@link ProbeHttp}, {@link
 * ExecRunner}) are thread-safe.
 */
public sealed interface Prober
    permits Prober.HttpGetProber, Prober.TcpSocketProber, Prober.ExecProber {

  /** The user agent of HTTP probes unless the probe sets its own, as upstream v1.20. */
  String USER_AGENT = "kube-probe/1.20";

  /** At most this much of an HTTP body is read and kept as output, as upstream. */
  int MAX_BODY_BYTES = 10 * 1024;

  /** Runs one attempt. Never throws; an attempt that cannot tell returns {@code UNKNOWN}. */
  ProbeOutcome probe(ProbeTarget target);

  /** An HTTP header of an HTTP probe. */
  record Header(String name, String value) {
    public Header {
      Objects.requireNonNull(name, "name");
      value = value == null ? "" : value;
    }
  }

  /** The scheme of an HTTP probe. */
  enum Scheme {
    HTTP,
    HTTPS
  }

  /**
   * An HTTP GET: status 200–399 succeeds; anything else, or no response, fails. HTTPS does not
   * verify certificates, as upstream. A failure's output is upstream's, followed by the first bytes
   * of the body ({@link FailureDetail#httpStatus}).
   *
   * <p>NOTE: redirects are not followed (upstream follows same-host ones); a 3xx answer counts as
   * success, as upstream counts a redirect it does not follow.
   *
   * <p>{@link ProbeHttp} sends it: a connection per attempt, a {@code Host} header as the probe
   * names it, at most {@link #MAX_BODY_BYTES} of the body read, and the whole attempt within the
   * probe's timeout.
   *
   * @param host the host to connect to, or null for the pod IP
   */
  record HttpGetProber(
      Scheme scheme,
      @Nullable String host,
      int port,
      String path,
      @Nullable List<Header> headers,
      ProbeHttp client)
      implements Prober {
    public HttpGetProber {
      Records.requireNonNull(HttpGetProber.class, scheme, path, client);
      path = path.isEmpty() ? "/" : path.startsWith("/") ? path : "/" + path;
      headers = List.copyOf(headers == null ? List.of() : headers);
    }

    /** The host an attempt connects to: {@code host}, or else the pod IP. */
    private String target(String podIp) {
      return host == null || host.isEmpty() ? podIp : host;
    }

    /** The URL an attempt gets, for the given pod IP. */
    public URI uri(String podIp) {
      return URI.create(
          scheme.name().toLowerCase() + "://" + HostPort.join(target(podIp), port) + path);
    }

    @Override
    public ProbeOutcome probe(ProbeTarget target) {
      URI uri;
      String h = target(target.podIp());
      try {
        uri = uri(target.podIp());
      } catch (IllegalArgumentException e) {
        return ProbeOutcome.failure("HTTP probe: invalid URL: " + e.getMessage());
      }
      if (h == null || h.isEmpty()) {
        return ProbeOutcome.failure("Get \"" + uri + "\": no host and no pod IP");
      }
      try {
        ProbeHttp.Response resp =
            client.get(new ProbeHttp.Request(scheme, h, port, path, headers), target.timeout());
        int status = resp.status();
        if (status >= 200 && status < 400) {
          return ProbeOutcome.success(resp.body());
        }
        return ProbeOutcome.failure(FailureDetail.httpStatus(status, resp.body()));
      } catch (ProbeHttp.Failure e) {
        return ProbeOutcome.failure("Get \"" + uri + "\": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ProbeOutcome.unknown("HTTP probe interrupted");
      } catch (RuntimeException e) {
        return ProbeOutcome.failure("Get \"" + uri + "\": " + ProbeErrors.describe(e));
      }
    }
  }

  /**
   * A TCP connect: succeeds when the connection opens within the timeout. A failure's output is the
   * error as Go's dialer words it ({@code dial tcp 10.1.0.5:80: connect: connection refused}), as
   * upstream's.
   *
   * @param host the host to connect to, or null for the pod IP
   */
  record TcpSocketProber(String host, int port) implements Prober {
    @Override
    public ProbeOutcome probe(ProbeTarget target) {
      String h = host == null || host.isEmpty() ? target.podIp() : host;
      String where = "dial tcp " + h + ":" + port + ": ";
      if (h == null || h.isEmpty()) {
        return ProbeOutcome.failure(where + "no host and no pod IP");
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(h, port), (int) target.timeout().toMillis());
        return ProbeOutcome.success("");
      } catch (ConnectException e) {
        return ProbeOutcome.failure(where + "connect: " + ProbeErrors.connect(e));
      } catch (SocketTimeoutException e) {
        return ProbeOutcome.failure(where + "i/o timeout");
      } catch (UnknownHostException e) {
        return ProbeOutcome.failure(where + "lookup " + h + ": no such host");
      } catch (IOException | RuntimeException e) {
        return ProbeOutcome.failure(where + ProbeErrors.describe(e));
      }
    }
  }

  /**
   * A command run in the container: exit code 0 succeeds. A failure's output is the last lines of
   * the command's output and its exit code ({@link FailureDetail#exec}).
   */
  record ExecProber(List<String> command, ExecRunner runner) implements Prober {
    public ExecProber {
      command = List.copyOf(command);
      Objects.requireNonNull(runner, "runner");
    }

    @Override
    public ProbeOutcome probe(ProbeTarget target) {
      if (target.containerId() == null || target.containerId().isEmpty()) {
        return ProbeOutcome.unknown("exec probe: no container id");
      }
      ExecResult r;
      try {
        r = runner.exec(target.containerId(), command, target.timeout());
      } catch (RuntimeException e) {
        return ProbeOutcome.unknown(
            "exec probe: cannot run " + command + ": " + ProbeErrors.describe(e));
      }
      if (!r.timedOut() && r.exitCode() == 0) {
        return ProbeOutcome.success(r.output());
      }
      return ProbeOutcome.failure(FailureDetail.exec(r));
    }
  }
}
