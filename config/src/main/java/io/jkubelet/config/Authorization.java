package io.jkubelet.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code authorization}: {@code mode} ({@code AlwaysAllow} or {@code Webhook}), {@code
 * webhook.cacheAuthorizedTTL} (5m) and {@code webhook.cacheUnauthorizedTTL} (30s). The flag default
 * is AlwaysAllow; a configuration file's ({@link #FILE_DEFAULTS}) is Webhook.
 */
public record Authorization(
    String mode, Duration cacheAuthorizedTTL, Duration cacheUnauthorizedTTL) {
  public static final Authorization DEFAULTS =
      new Authorization("AlwaysAllow", Duration.ofMinutes(5), Duration.ofSeconds(30));

  /** The file defaults of {@code authorization}: mode Webhook. */
  public static final Authorization FILE_DEFAULTS =
      new Authorization("Webhook", Duration.ofMinutes(5), Duration.ofSeconds(30));

  public Authorization {
    Objects.requireNonNull(mode, "authorization.mode");
    Objects.requireNonNull(cacheAuthorizedTTL, "authorization.webhook.cacheAuthorizedTTL");
    Objects.requireNonNull(cacheUnauthorizedTTL, "authorization.webhook.cacheUnauthorizedTTL");
  }
}
