package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import com.github.dockerjava.transport.DockerHttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two docker-java clients of one engine (see {@link DockerRuntime}'s class comment on
 * timeouts): {@code api} for the calls the engine answers at once, {@code longCalls} for those
 * whose answer legitimately takes long (stop, pull, exec and event streams). {@code owned} says
 * whether {@link #close} closes them. Immutable; docker-java clients are thread-safe.
 */
record DockerClients(DockerClient api, DockerClient longCalls, boolean owned) {
  private static final Logger log = LoggerFactory.getLogger(DockerClients.class);

  static final long RESPONSE_TIMEOUT_SECONDS = 30;
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(RESPONSE_TIMEOUT_SECONDS);
  static final Duration LONG_RESPONSE_TIMEOUT = Duration.ofHours(1);
  private static final int MAX_CONNECTIONS = 50;

  DockerClients {
    Objects.requireNonNull(api, "client");
    Objects.requireNonNull(longCalls, "longCallClient");
  }

  /**
   * Builds both clients for an engine, e.g. {@code unix:///var/run/docker.sock} or {@code
   * tcp://host:2375}. Nothing is sent until the first call. The API version is not pinned:
   * docker-java does not negotiate one, and unversioned paths get the engine's own.
   */
  static DockerClients connect(String host) {
    return connect(host, RESPONSE_TIMEOUT);
  }

  /**
   * As above, {@code api}'s response timeout {@code requestTimeout} ({@code
   * runtimeRequestTimeout}).
   */
  static DockerClients connect(String host, Duration requestTimeout) {
    DockerClientConfig config =
        DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host).build();
    log.debug("DockerRuntime: connecting to {}", host);
    return new DockerClients(
        client(config, requestTimeout), client(config, LONG_RESPONSE_TIMEOUT), true);
  }

  private static DockerClient client(DockerClientConfig config, Duration responseTimeout) {
    ApacheDockerHttpClient http =
        new ApacheDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .sslConfig(config.getSSLConfig())
            .maxConnections(MAX_CONNECTIONS)
            .connectionTimeout(CONNECT_TIMEOUT)
            .responseTimeout(responseTimeout)
            .build();
    return DockerClientImpl.getInstance(config, http);
  }

  /**
   * The transport a client sends its requests on, for the calls read without docker-java's binding
   * ({@link ContainerList}); empty for a client not built on a {@link DockerHttpClient}.
   */
  static Optional<DockerHttpClient> transportOf(DockerClient client) {
    return client instanceof DockerClientImpl impl
        ? Optional.ofNullable(impl.getHttpClient())
        : Optional.empty();
  }

  /** Closes both clients if they are owned; a no-op otherwise. */
  void close() {
    if (owned) {
      closeQuietly(api);
      closeQuietly(longCalls);
    }
  }

  /** Closes without throwing: a failure to close is only logged. */
  static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.debug("DockerRuntime: closing {} failed: {}", c, e.toString());
    }
  }
}
