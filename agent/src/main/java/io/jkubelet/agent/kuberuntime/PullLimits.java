package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.runtime.ForwardingRuntime;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.util.TokenBucket;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Upstream's limits on image pulls, as a decorator of the runtime the {@link ImagePuller} pulls
 * with: {@code registryPullQPS} and {@code registryBurst} (a pull beyond them fails at once with
 * upstream's {@code pull QPS exceeded}, as its {@code throttledImageService}), and {@code
 * serializeImagePulls} (one pull at a time, in arrival order, as its serial puller).
 *
 * <p>Thread-safe: the bucket is, and the fair lock orders the pulls.
 */
public final class PullLimits extends ForwardingRuntime {
  /** Upstream's message for a pull over the rate. */
  static final String QPS_EXCEEDED = "pull QPS exceeded";

  private final TokenBucket bucket;
  private final ReentrantLock serial;

  private PullLimits(Runtime delegate, TokenBucket bucket, boolean serialize) {
    super(delegate);
    this.bucket = bucket;
    this.serial = serialize ? new ReentrantLock(true) : null;
  }

  /**
   * {@code runtime} with these limits, or {@code runtime} itself when there are none ({@code qps} 0
   * and not serialized).
   */
  public static Runtime of(Runtime runtime, Clock clock, int qps, int burst, boolean serialize) {
    TokenBucket bucket = qps > 0 ? new TokenBucket(clock, qps, Math.max(burst, 1)) : null;
    return bucket == null && !serialize ? runtime : new PullLimits(runtime, bucket, serialize);
  }

  @Override
  public void pullImage(String image, RegistryAuth auth, Duration timeout, PullObserver observer) {
    if (bucket != null && !bucket.tryAcquire().isZero()) {
      throw new RuntimeError(RuntimeError.Kind.IMAGE_PULL, QPS_EXCEEDED);
    }
    if (serial == null) {
      delegate.pullImage(image, auth, timeout, observer);
      return;
    }
    serial.lock();
    try {
      delegate.pullImage(image, auth, timeout, observer);
    } finally {
      serial.unlock();
    }
  }
}
