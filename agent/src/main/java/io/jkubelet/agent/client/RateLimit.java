package io.jkubelet.agent.client;

/**
 * A client-side rate limit of API requests, as client-go's {@code rest.Config} {@code QPS} and
 * {@code Burst}: {@code burst} requests at once, then {@code qps} per second.
 *
 * @param qps requests per second; 0 or less: no limit
 * @param burst the requests allowed at once; at least 1 when {@code qps} is positive
 */
public record RateLimit(double qps, int burst) {
  /** client-go's {@code DefaultQPS} and {@code DefaultBurst}, which a client given 0 gets. */
  public static final RateLimit CLIENT_GO_DEFAULT = new RateLimit(5, 10);

  /** No limit, as upstream's heartbeat client ({@code QPS: -1}). */
  public static final RateLimit NONE = new RateLimit(0, 0);

  public RateLimit {
    if (qps > 0 && burst < 1) {
      throw new IllegalArgumentException(
          "a rate limit of " + qps + "/s needs a burst of 1 or more");
    }
  }

  /** Whether requests are limited at all. */
  public boolean limited() {
    return qps > 0;
  }

  /**
   * {@code kubeAPIQPS} and {@code kubeAPIBurst}, as upstream's kubelet gives them to client-go:
   * where either is 0, client-go's default (5 and 10) applies.
   */
  public static RateLimit kubeApi(int qps, int burst) {
    return new RateLimit(
        qps > 0 ? qps : CLIENT_GO_DEFAULT.qps(), burst > 0 ? burst : CLIENT_GO_DEFAULT.burst());
  }

  /**
   * {@code eventRecordQPS} and {@code eventBurst}, with the meaning upstream's flags document: 0
   * events per second is no limit. (NOTE: upstream v1.20's client then falls back to client-go's
   * default of 5 per second; jkubelet does what the flag says.)
   */
  public static RateLimit events(int qps, int burst) {
    return qps > 0 ? new RateLimit(qps, Math.max(burst, 1)) : NONE;
  }

  @Override
  public String toString() {
    return limited() ? qps + "/s, burst " + burst : "unlimited";
  }
}
