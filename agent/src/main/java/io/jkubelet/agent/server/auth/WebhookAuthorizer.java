package io.jkubelet.agent.server.auth;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;

/**
 * Authorization mode Webhook: a SubjectAccessReview per (subject, attributes), the allowed answers
 * cached for {@code authorization.webhook.cacheAuthorizedTTL} (default 5m) and the denied ones for
 * {@code cacheUnauthorizedTTL} (default 30s). Thread-safe.
 */
public final class WebhookAuthorizer implements Authorizer {
  private record Key(Subject subject, Attributes attributes) {}

  /**
   * The most answers cached, least recently used evicted first (upstream's webhook authorizer keeps
   * 8192, its token cache expires entries but does not bound them).
   */
  public static final int CACHE_CAPACITY = 1024;

  private final KubernetesClient client;
  private final Duration allowedTtl;
  private final Duration deniedTtl;
  private final TtlCache<Key, Boolean> cache;

  public WebhookAuthorizer(
      KubernetesClient client, Clock clock, Duration allowedTtl, Duration deniedTtl) {
    this.client = client;
    this.allowedTtl = allowedTtl;
    this.deniedTtl = deniedTtl;
    this.cache = new TtlCache<>(clock, CACHE_CAPACITY);
  }

  @Override
  public boolean allowed(Subject subject, Attributes a) {
    Key key = new Key(subject, a);
    var cached = cache.get(key);
    if (cached.isPresent()) {
      return cached.get();
    }
    SubjectAccessReview review =
        client
            .resource(
                new SubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withUser(subject.name())
                    .withGroups(subject.groups())
                    .withNewResourceAttributes()
                    .withVerb(a.verb())
                    .withGroup("")
                    .withVersion("v1")
                    .withResource(a.resource())
                    .withSubresource(a.subresource())
                    .withName(a.name())
                    .endResourceAttributes()
                    .endSpec()
                    .build())
            .create();
    boolean allowed =
        review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
    cache.put(key, allowed, allowed ? allowedTtl : deniedTtl);
    return allowed;
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
