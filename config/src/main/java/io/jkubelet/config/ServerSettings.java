package io.jkubelet.config;

/**
 * The kubelet API's settings of upstream's KubeletConfiguration: where its servers listen, its
 * serving certificate, and how it authenticates and authorizes requests. Checked by {@link
 * ConfigValidator}.
 */
public record ServerSettings(
    @Field(
            value = "10255",
            fileValue = "0",
            min = 0,
            max = 65535,
            doc = "Port of the read-only HTTP server (/healthz, /pods), 0 to disable")
        int readOnlyPort,
    @Field(
            value = "10250",
            min = 1,
            max = 65535,
            zeroIsUnset = true,
            doc = "Port of the kubelet API (HTTPS)")
        int port,
    @Field(value = "0.0.0.0", zeroIsUnset = true, doc = "Address the servers listen on")
        String address,
    ServingTlsSettings tls,
    Authentication authentication,
    Authorization authorization,
    HealthzSettings healthz,
    DebugHandlerSettings handlers) {

  /** The flags' defaults, as declared. */
  public static final ServerSettings DEFAULTS = Settings.defaults(ServerSettings.class, false);

  /**
   * A configuration file's defaults, which differ from the flags' where {@code
   * kubelet.config.k8s.io/v1beta1} says so: {@code readOnlyPort} 0, no anonymous requests, the
   * token webhook on and authorization mode Webhook.
   */
  public static final ServerSettings FILE_DEFAULTS = Settings.defaults(ServerSettings.class, true);
}
