package io.jkubelet.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code authentication}: {@code x509.clientCAFile}, {@code webhook.enabled}, {@code
 * webhook.cacheTTL} and {@code anonymous.enabled}. The defaults are the flags' ({@code
 * --anonymous-auth=true}, no webhook); a configuration file starts from {@link #FILE_DEFAULTS}, as
 * {@code kubelet.config.k8s.io/v1beta1} defaults it.
 */
public record Authentication(
    String clientCAFile, boolean webhookEnabled, Duration webhookCacheTTL, boolean anonymous) {
  public static final Authentication DEFAULTS =
      new Authentication("", false, Duration.ofMinutes(2), true);

  /** The file defaults of {@code authentication}: no anonymous requests, the token webhook on. */
  public static final Authentication FILE_DEFAULTS =
      new Authentication("", true, Duration.ofMinutes(2), false);

  public Authentication {
    Objects.requireNonNull(clientCAFile, "authentication.x509.clientCAFile");
    Objects.requireNonNull(webhookCacheTTL, "authentication.webhook.cacheTTL");
  }
}
