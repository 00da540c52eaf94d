package io.jkubelet.config;

import java.nio.file.Path;
import java.util.List;

/**
 * The kubelet API's settings of upstream's KubeletConfiguration: where its servers listen, its
 * serving certificate, and how it authenticates and authorizes requests. Checked by {@link
 * ConfigValidator}; this record only rejects nulls.
 */
public record ServerSettings(
    @Field(
            label = "PORT",
            value = "10255",
            fileValue = "0",
            min = 0,
            max = 65535,
            doc = "Port of the read-only HTTP server (/healthz, /pods), 0 to disable")
        int readOnlyPort,
    @Field(
            label = "PORT",
            value = "10250",
            min = 1,
            max = 65535,
            zeroIsUnset = true,
            doc = "Port of the kubelet API (HTTPS)")
        int port,
    @Field(
            label = "IP",
            value = "0.0.0.0",
            zeroIsUnset = true,
            doc = "Address the servers listen on")
        String address,
    @Field(
            label = "FILE",
            doc =
                "The serving certificate, PEM, intermediates after it; without it a self-signed"
                    + " one is made in --cert-dir")
        String tlsCertFile,
    @Field(label = "FILE", doc = "The serving certificate's key, PEM") String tlsPrivateKeyFile,
    @Field(
            label = "NAME,...",
            check = Checks.TlsCipherSuites.class,
            doc =
                "The kubelet API's cipher suites up to TLS 1.2, by Go's names as upstream's"
                    + " (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...); none: the TLS engine's"
                    + " defaults. TLS 1.3 always has its own three")
        List<String> tlsCipherSuites,
    @Field(
            label = "VERSION",
            check = Checks.TlsVersion.class,
            doc =
                "The kubelet API's lowest TLS version: VersionTLS10, VersionTLS11, VersionTLS12 or"
                    + " VersionTLS13; none: VersionTLS12, as upstream's")
        String tlsMinVersion,
    Authentication authentication,
    Authorization authorization,
    @Field(
            label = "PORT",
            value = "10248",
            min = 0,
            max = 65535,
            doc = "Port of the plain-HTTP /healthz, 0 to disable")
        int healthzPort,
    @Field(label = "IP", value = "127.0.0.1", zeroIsUnset = true, doc = "Address of /healthz")
        String healthzBindAddress,
    @Field(value = "true", doc = "Whether logs, exec, attach, port-forward and run are served")
        boolean enableDebuggingHandlers,
    @Field(
            value = "false",
            doc =
                "Whether /logs/ serves the node's log directory, with the debugging handlers"
                    + " (upstream: true; here it must be asked for, as it shows the whole"
                    + " directory to anyone allowed nodes/log)")
        boolean enableSystemLogHandler,
    @Field(
            file = Field.FLAG_ONLY,
            label = "DIR",
            value = "/var/log",
            doc = "The directory /logs/ serves when enableSystemLogHandler is on (jkubelet's own)")
        Path nodeLogDir) {

  /** The flags' defaults, as declared. */
  public static final ServerSettings DEFAULTS = Settings.defaults(ServerSettings.class, false);

  /**
   * A configuration file's defaults, which differ from the flags' where {@code
   * kubelet.config.k8s.io/v1beta1} says so: {@code readOnlyPort} 0, no anonymous requests, the
   * token webhook on and authorization mode Webhook.
   */
  public static final ServerSettings FILE_DEFAULTS = Settings.defaults(ServerSettings.class, true);

  public ServerSettings {
    Records.requireNonNull(
        ServerSettings.class,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        tlsCipherSuites,
        tlsMinVersion,
        authentication,
        authorization,
        healthzBindAddress,
        nodeLogDir);
    tlsCipherSuites = List.copyOf(tlsCipherSuites);
  }
}
