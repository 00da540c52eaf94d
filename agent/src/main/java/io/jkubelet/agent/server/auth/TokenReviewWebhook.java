package io.jkubelet.agent.server.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Bearer tokens reviewed by the API server's TokenReview API ({@code
 * --authentication-token-webhook}); answers, valid or not, are cached for the TTL ({@code
 * authentication.webhook.cacheTTL}, default 2m). Thread-safe.
 */
public final class TokenReviewWebhook implements TokenReviewer {
  /**
   * The most answers cached, least recently used evicted first (upstream's webhook authorizer keeps
   * 8192, its token cache expires entries but does not bound them).
   */
  public static final int CACHE_CAPACITY = 1024;

  private final KubernetesClient client;
  private final Duration ttl;
  private final TtlCache<String, Optional<Subject>> cache;

  public TokenReviewWebhook(KubernetesClient client, Clock clock, Duration ttl) {
    this.client = client;
    this.ttl = ttl;
    this.cache = new TtlCache<>(clock, CACHE_CAPACITY);
  }

  @Override
  public Optional<Subject> review(String token) {
    Optional<Optional<Subject>> cached = cache.get(token);
    if (cached.isPresent()) {
      return cached.get();
    }
    TokenReview review =
        client
            .resource(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build())
            .create();
    Optional<Subject> subject = Optional.empty();
    if (review.getStatus() != null
        && Boolean.TRUE.equals(review.getStatus().getAuthenticated())
        && review.getStatus().getUser() != null) {
      var user = review.getStatus().getUser();
      List<String> groups = user.getGroups() == null ? List.of() : user.getGroups();
      subject = Optional.of(new Subject(user.getUsername(), groups));
    }
    cache.put(token, subject, ttl);
    return subject;
  }

  /** Answers cached now, expired ones included until read or evicted. */
  public int cachedEntries() {
    return cache.size();
  }

  /** Answers evicted because the cache was full. */
  public long cacheEvictions() {
    return cache.evictions();
  }
}
