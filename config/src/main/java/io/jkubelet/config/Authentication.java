package io.jkubelet.config;

import java.time.Duration;

/**
 * {@code authentication}: {@code x509.clientCAFile}, {@code webhook.enabled}, {@code
 * webhook.cacheTTL} and {@code anonymous.enabled}. The defaults are the flags' ({@code
 * --anonymous-auth=true}, no webhook); a configuration file starts from {@link #FILE_DEFAULTS}, as
 * {@code kubelet.config.k8s.io/v1beta1} defaults it.
 */
public record Authentication(
    @Field(
            file = "authentication.x509.clientCAFile",
            doc = "CAs that client certificates are verified against")
        String clientCAFile,
    @Field(
            file = "authentication.webhook.enabled",
            flag = "--authentication-token-webhook",
            fileValue = "true",
            doc = "Whether bearer tokens are checked with the TokenReview API")
        boolean webhookEnabled,
    @Field(
            file = "authentication.webhook.cacheTTL",
            flag = "--authentication-token-webhook-cache-ttl",
            value = "2m",
            doc = "How long TokenReview answers are cached")
        Duration webhookCacheTTL,
    @Field(
            file = "authentication.anonymous.enabled",
            flag = "--anonymous-auth",
            value = "true",
            fileValue = "false",
            doc = "Whether requests without credentials are served as system:anonymous")
        boolean anonymous) {
  public static final Authentication DEFAULTS = Settings.defaults(Authentication.class, false);

  /** The file defaults of {@code authentication}: no anonymous requests, the token webhook on. */
  public static final Authentication FILE_DEFAULTS = Settings.defaults(Authentication.class, true);
}
