package io.jkubelet.agent.client;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.util.TokenBucket;
import io.vertx.core.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rate limit shared by a group of API clients, as client-go's token bucket behind {@code
 * kubeAPIQPS}/{@code kubeAPIBurst}: an {@link Interceptor} whose {@code before} spends a token for
 * each request a client sends, and each try of it, and waits for it on the caller's thread. A watch
 * spends one when it starts (and when fabric8 starts it again); its events then flow freely, as
 * upstream's.
 *
 * <p>NOTE: fabric8 sends some requests from the shared Vert.x threads (an informer's list or watch
 * chained on the answer before it). Blocking there would stall every client's traffic, the node's
 * heartbeats among them, so such a request spends its token without waiting, and the requests after
 * it wait for it instead. The rate holds over time; only which request waits differs.
 *
 * <p>Thread-safe: the bucket is.
 */
final class RateLimiter implements Interceptor {
  private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

  /** The name it is installed under on each client's HTTP builder. */
  static final String NAME = "jkubelet-rate-limit";

  private final String name;
  private final TokenBucket bucket;
  private final Sleeper sleeper;
  private final BooleanSupplier mayBlock;
  private final LongAdder waits = new LongAdder();
  private volatile boolean logged;

  /**
   * @param name the group, for the log
   * @param mayBlock whether the calling thread may wait (not one of the engine's own)
   */
  RateLimiter(
      String name, RateLimit limit, Clock clock, Sleeper sleeper, BooleanSupplier mayBlock) {
    if (!limit.limited()) {
      throw new IllegalArgumentException("no rate limit to keep: " + limit);
    }
    this.name = Objects.requireNonNull(name, "name");
    this.bucket = new TokenBucket(clock, limit.qps(), limit.burst());
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.mayBlock = Objects.requireNonNull(mayBlock, "mayBlock");
  }

  /** The limiter of the real engine: it never blocks a Vert.x thread. */
  static RateLimiter of(String name, RateLimit limit, Clock clock, Sleeper sleeper) {
    return new RateLimiter(name, limit, clock, sleeper, () -> !Context.isOnVertxThread());
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    Duration wait = bucket.reserve();
    if (wait.isZero() || !mayBlock.getAsBoolean()) {
      return;
    }
    waits.increment();
    if (!logged) {
      logged = true;
      log.info(
          "API clients ({}): requests wait for the client-side rate limit (first: {} {}, {})",
          name,
          request.method(),
          request.uri().getPath(),
          wait);
    }
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the request goes; its caller sees the interrupt
    }
  }

  /** How many requests have waited, for tests and logs. */
  long waits() {
    return waits.sum();
  }
}
