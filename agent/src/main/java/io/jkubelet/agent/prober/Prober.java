package io.jkubelet.agent.prober;

import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One probe handler, able to run one attempt. The kinds are records so that callers can switch over
 * them; build them with {@link Probers#of}, which validates the definition.
 *
 * <p>Thread-safe: records are immutable, and their collaborators ({@link HttpClient}, {@link
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
   * verify certificates, as upstream; {@link Probers#insecureHttpClient()} builds such a client.
   *
   * <p>NOTE: redirects are not followed (upstream follows same-host ones); a 3xx answer counts as
   * success, as upstream counts a redirect it does not follow. A {@code Host} header is ignored:
   * {@link HttpClient} restricts it. The client keeps a connection open between attempts where the
   * server allows (upstream opens one per attempt).
   *
   * <p>An attempt, body included, ends within the probe's timeout; at most {@link #MAX_BODY_BYTES}
   * of the body are read.
   *
   * @param host the host to connect to, or null for the pod IP
   */
  record HttpGetProber(
      Scheme scheme, String host, int port, String path, List<Header> headers, HttpClient client)
      implements Prober {
    public HttpGetProber {
      Objects.requireNonNull(scheme, "scheme");
      Objects.requireNonNull(client, "client");
      path = path == null || path.isEmpty() ? "/" : path.startsWith("/") ? path : "/" + path;
      headers = List.copyOf(headers == null ? List.of() : headers);
    }

    /** The URL an attempt gets, for the given pod IP. */
    public URI uri(String podIp) {
      String h = host == null || host.isEmpty() ? podIp : host;
      if (h != null && h.contains(":") && !h.startsWith("[")) {
        h = "[" + h + "]";
      }
      return URI.create(scheme.name().toLowerCase() + "://" + h + ":" + port + path);
    }

    @Override
    public ProbeOutcome probe(ProbeTarget target) {
      URI uri;
      try {
        uri = uri(target.podIp());
      } catch (IllegalArgumentException e) {
        return ProbeOutcome.failure("HTTP probe: invalid URL: " + e.getMessage());
      }
      HttpRequest.Builder req = HttpRequest.newBuilder(uri).GET().timeout(target.timeout());
      boolean userAgent = false;
      boolean accept = false;
      for (Header h : headers) {
        if (h.name().equalsIgnoreCase("Host")) {
          continue;
        }
        userAgent |= h.name().equalsIgnoreCase("User-Agent");
        accept |= h.name().equalsIgnoreCase("Accept");
        req.header(h.name(), h.value());
      }
      if (!userAgent) {
        req.header("User-Agent", USER_AGENT);
      }
      if (!accept) {
        req.header("Accept", "*/*");
      }
      // The whole attempt, body included, is bounded by the probe's timeout: the request's own
      // timeout covers only the wait for the response's headers.
      CompletableFuture<HttpResponse<String>> attempt =
          client.sendAsync(req.build(), CappedBody.handler(MAX_BODY_BYTES));
      try {
        HttpResponse<String> resp = attempt.get(target.timeout().toMillis(), TimeUnit.MILLISECONDS);
        int status = resp.statusCode();
        if (status >= 200 && status < 400) {
          return ProbeOutcome.success(resp.body());
        }
        return ProbeOutcome.failure("HTTP probe failed with statuscode: " + status);
      } catch (TimeoutException e) {
        attempt.cancel(true); // closes the exchange
        return timedOut(uri, target);
      } catch (ExecutionException e) {
        return failed(uri, e.getCause() == null ? e : e.getCause(), target);
      } catch (InterruptedException e) {
        attempt.cancel(true);
        Thread.currentThread().interrupt();
        return ProbeOutcome.unknown("HTTP probe interrupted");
      } catch (RuntimeException e) {
        return failed(uri, e, target);
      }
    }

    private ProbeOutcome failed(URI uri, Throwable e, ProbeTarget target) {
      if (e instanceof HttpTimeoutException) {
        return timedOut(uri, target);
      }
      if (e instanceof ConnectException) {
        return ProbeOutcome.failure(
            "Get \""
                + uri
                + "\": dial tcp "
                + uri.getHost()
                + ":"
                + uri.getPort()
                + ": connect: "
                + refusedOr(e));
      }
      return ProbeOutcome.failure("Get \"" + uri + "\": " + describe(e));
    }

    private static ProbeOutcome timedOut(URI uri, ProbeTarget target) {
      return ProbeOutcome.failure(
          "Get \"" + uri + "\": timeout after " + target.timeout().toMillis() + "ms");
    }
  }

  /**
   * A TCP connect: succeeds when the connection opens within the timeout.
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
        return ProbeOutcome.failure(where + "connect: " + refusedOr(e));
      } catch (SocketTimeoutException e) {
        return ProbeOutcome.failure(where + "i/o timeout");
      } catch (UnknownHostException e) {
        return ProbeOutcome.failure(where + "lookup " + h + ": no such host");
      } catch (IOException | RuntimeException e) {
        return ProbeOutcome.failure(where + describe(e));
      }
    }
  }

  /** A command run in the container: exit code 0 succeeds. */
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
        return ProbeOutcome.unknown("exec probe: cannot run " + command + ": " + describe(e));
      }
      if (r.timedOut()) {
        return ProbeOutcome.failure("command timed out");
      }
      return r.exitCode() == 0
          ? ProbeOutcome.success(r.output())
          : ProbeOutcome.failure(r.output());
    }
  }

  /**
   * Why a connection did not open, as Go words it: {@code connection refused}, or the lower-cased
   * message. The HTTP client's {@link ConnectException} carries no message, nor does its cause: a
   * refusal is then the likely reason, and the one Go would name.
   */
  private static String refusedOr(Throwable e) {
    String msg = describe(e).toLowerCase(Locale.ROOT);
    return msg.contains("refused") || msg.equals("connectexception") ? "connection refused" : msg;
  }

  /**
   * An exception's message; when it has none (the HTTP client's wrappers), its root cause's
   * message; else the class of the exception.
   */
  private static String describe(Throwable e) {
    if (e.getMessage() != null && !e.getMessage().isBlank()) {
      return e.getMessage();
    }
    Throwable root = Errors.rootCause(e);
    if (root.getMessage() != null && !root.getMessage().isBlank()) {
      return root.getMessage();
    }
    return e.getClass().getSimpleName();
  }
}
