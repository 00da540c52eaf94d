package io.jkubelet.agent.node;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Builds the client that heartbeats use, as upstream builds {@code heartbeatClient}: its own
 * connections, a request timeout of the update frequency (at most the lease duration), and no
 * client-side retries.
 *
 * <p>NOTE: fabric8 retries a failed request itself, 10 times with a backoff doubling from 100 ms,
 * by default. On a heartbeat that turns one outage into minutes of a blocked thread and a Lease
 * that expires; the {@link NodeStatusManager} retries on its own schedule instead.
 */
public final class HeartbeatClient {
  private HeartbeatClient() {}

  /** A heartbeat client for these options: request timeout min(update frequency, lease). */
  public static KubernetesClient create(Config base, NodeOptions options) {
    return create(base, options, UnaryOperator.identity());
  }

  /**
   * A heartbeat client for these options, its builder customized (e.g. with a metrics interceptor).
   */
  public static KubernetesClient create(
      Config base, NodeOptions options, UnaryOperator<KubernetesClientBuilder> customize) {
    Duration timeout = options.heartbeat().statusUpdateFrequency();
    Duration lease = Duration.ofSeconds(options.heartbeat().leaseDurationSeconds());
    return create(base, timeout.compareTo(lease) > 0 ? lease : timeout, customize);
  }

  /** A heartbeat client with this request and connect timeout. */
  public static KubernetesClient create(Config base, Duration requestTimeout) {
    return create(base, requestTimeout, UnaryOperator.identity());
  }

  private static KubernetesClient create(
      Config base, Duration requestTimeout, UnaryOperator<KubernetesClientBuilder> customize) {
    int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, requestTimeout.toMillis()));
    Config config =
        new ConfigBuilder(base)
            .withRequestTimeout(ms)
            .withConnectionTimeout(ms)
            .withRequestRetryBackoffLimit(0)
            .build();
    return customize.apply(new KubernetesClientBuilder().withConfig(config)).build();
  }
}
