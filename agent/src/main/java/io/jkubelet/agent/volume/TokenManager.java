package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.jkubelet.agent.util.Errors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Service-account tokens for projected volumes, as upstream's {@code pkg/kubelet/token} manager:
 * one TokenRequest per (namespace, account, audience, expiry, pod), cached, and asked again once 80
 * % of its lifetime has passed or it is 24 h old. While the API server cannot be reached, a cached
 * token that has not expired is still served. Upstream adds up to 10 s of random jitter to the
 * refresh time; this manager refreshes exactly on time, on the injected clock.
 *
 * <p>Thread-safe: the cache is a concurrent map; two workers refreshing one key at once both ask,
 * and the later answer wins, which is harmless.
 */
final class TokenManager {
  private static final Logger log = LoggerFactory.getLogger(TokenManager.class);
  static final Duration MAX_TTL = Duration.ofHours(24);
  static final long DEFAULT_EXPIRATION_SECONDS = 3600;

  private final TokenSource source;
  private final Clock clock;
  private final Map<Key, TokenRequest> cache = new ConcurrentHashMap<>();

  TokenManager(TokenSource source, Clock clock) {
    this.source = source;
    this.clock = clock;
  }

  private record Key(
      String namespace, String account, String audience, long expirationSeconds, String podUid) {}

  /** A token that cannot be had; the message is the API server's answer. */
  static final class TokenError extends Exception {
    TokenError(String message) {
      super(message);
    }
  }

  /** The token for this projection of the pod, from the cache while it is fresh. */
  String token(Pod pod, ServiceAccountTokenProjection p) throws TokenError {
    String ns = pod.getMetadata().getNamespace();
    String sa = serviceAccount(pod);
    long exp =
        p.getExpirationSeconds() == null ? DEFAULT_EXPIRATION_SECONDS : p.getExpirationSeconds();
    String aud = p.getAudience() == null ? "" : p.getAudience();
    Key key = new Key(ns, sa, aud, exp, pod.getMetadata().getUid());
    TokenRequest cached = cache.get(key);
    if (cached != null && !requiresRefresh(cached)) {
      return cached.getStatus().getToken();
    }
    try {
      TokenRequest tr = source.request(ns, sa, request(pod, aud, exp));
      if (tr == null || tr.getStatus() == null || tr.getStatus().getToken() == null) {
        throw new IllegalStateException("the API server returned no token");
      }
      cache.put(key, tr);
      return tr.getStatus().getToken();
    } catch (Exception e) {
      if (cached != null && !expired(cached)) {
        log.warn(
            "Volumes: couldn't update token {}/{} for pod {}, using the cached one: {}",
            ns,
            sa,
            pod.getMetadata().getName(),
            e.getMessage());
        return cached.getStatus().getToken();
      }
      throw Errors.withCause(
          new TokenError(
              "failed to fetch token: " + (e.getMessage() == null ? e.toString() : e.getMessage())),
          e);
    }
  }

  /** Forgets the tokens bound to a pod that is gone. */
  void forget(String podUid) {
    cache.keySet().removeIf(k -> k.podUid().equals(podUid));
  }

  /** How many tokens are cached; for tests. */
  int size() {
    return cache.size();
  }

  /** upstream's {@code requiresRefresh}: 24 h after issue, or within the last 20 % of its TTL. */
  boolean requiresRefresh(TokenRequest tr) {
    Long seconds = tr.getSpec() == null ? null : tr.getSpec().getExpirationSeconds();
    Instant exp = expiry(tr);
    if (seconds == null || exp == null) {
      return true;
    }
    Instant now = clock.instant();
    Instant issued = exp.minusSeconds(seconds);
    if (now.isAfter(issued.plus(MAX_TTL))) {
      return true;
    }
    return now.isAfter(exp.minusSeconds(seconds * 20 / 100));
  }

  private boolean expired(TokenRequest tr) {
    Instant exp = expiry(tr);
    return exp == null || !clock.instant().isBefore(exp);
  }

  private static Instant expiry(TokenRequest tr) {
    String ts = tr.getStatus() == null ? null : tr.getStatus().getExpirationTimestamp();
    try {
      return ts == null ? null : Instant.parse(ts);
    } catch (RuntimeException e) {
      return null;
    }
  }

  static String serviceAccount(Pod pod) {
    String sa = pod.getSpec().getServiceAccountName();
    return sa == null || sa.isEmpty() ? "default" : sa;
  }

  private static TokenRequest request(Pod pod, String audience, long expirationSeconds) {
    return new TokenRequestBuilder()
        .withNewSpec()
        .withAudiences(audience.isEmpty() ? List.of() : List.of(audience))
        .withExpirationSeconds(expirationSeconds)
        .withBoundObjectRef(
            new BoundObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .build())
        .endSpec()
        .build();
  }
}
