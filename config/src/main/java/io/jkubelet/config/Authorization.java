package io.jkubelet.config;

import java.time.Duration;

/**
 * {@code authorization}: {@code mode} ({@code AlwaysAllow} or {@code Webhook}), {@code
 * webhook.cacheAuthorizedTTL} and {@code webhook.cacheUnauthorizedTTL}. The flag default is
 * AlwaysAllow; a configuration file's ({@link #FILE_DEFAULTS}) is Webhook.
 */
public record Authorization(
    @Field(
            file = "authorization.mode",
            flag = "--authorization-mode",
            value = "AlwaysAllow",
            fileValue = "Webhook",
            oneOf = {"AlwaysAllow", "Webhook"},
            zeroIsUnset = true,
            doc = "AlwaysAllow or Webhook (SubjectAccessReview)")
        String mode,
    @Field(
            file = "authorization.webhook.cacheAuthorizedTTL",
            flag = "--authorization-webhook-cache-authorized-ttl",
            value = "5m",
            doc = "How long SubjectAccessReview's allowing answers are cached")
        Duration cacheAuthorizedTTL,
    @Field(
            file = "authorization.webhook.cacheUnauthorizedTTL",
            flag = "--authorization-webhook-cache-unauthorized-ttl",
            value = "30s",
            doc = "How long SubjectAccessReview's denying answers are cached")
        Duration cacheUnauthorizedTTL) {
  public static final Authorization DEFAULTS = Settings.defaults(Authorization.class, false);

  /** The file defaults of {@code authorization}: mode Webhook. */
  public static final Authorization FILE_DEFAULTS = Settings.defaults(Authorization.class, true);
}
