package io.jkubelet.config;

import java.util.Objects;

/**
 * The kubelet API's fields of upstream's KubeletConfiguration: where its servers listen, its
 * serving certificate, and how it authenticates and authorizes requests. Ranges are checked by
 * {@link ConfigValidator}; this record only rejects nulls.
 *
 * @param readOnlyPort port of the unauthenticated read-only HTTP API; 0 disables it; default 10255
 * @param port port of the main HTTPS API; default 10250
 * @param address IP address the APIs listen on; default {@code "0.0.0.0"} (all interfaces)
 * @param tlsCertFile the serving certificate (PEM, chain after it); {@code ""} (the default): a
 *     self-signed one in the certificate directory
 * @param tlsPrivateKeyFile the serving certificate's key (PEM); default {@code ""}
 * @param authentication how the kubelet API authenticates requests
 * @param authorization how the kubelet API authorizes requests
 * @param healthzPort port of the plain-HTTP {@code /healthz}; 0 disables it; default 10248
 * @param healthzBindAddress address of {@code /healthz}; default {@code "127.0.0.1"}
 * @param enableDebuggingHandlers whether {@code /logs/}, {@code /containerLogs}, exec, attach,
 *     port-forward and run are served; default true
 * @param enableSystemLogHandler whether {@code /logs/} serves the node's log directory; default
 *     false (upstream: true, and only with the debugging handlers; here it must be asked for, as it
 *     shows the whole directory to anyone allowed {@code nodes/log})
 */
public record ServerSettings(
    int readOnlyPort,
    int port,
    String address,
    String tlsCertFile,
    String tlsPrivateKeyFile,
    Authentication authentication,
    Authorization authorization,
    int healthzPort,
    String healthzBindAddress,
    boolean enableDebuggingHandlers,
    boolean enableSystemLogHandler) {

  /** The flags' defaults, as documented on each component. */
  public static final ServerSettings DEFAULTS =
      new ServerSettings(
          10255,
          10250,
          "0.0.0.0",
          "",
          "",
          Authentication.DEFAULTS,
          Authorization.DEFAULTS,
          10248,
          "127.0.0.1",
          true,
          false);

  /**
   * A configuration file's defaults, which differ from the flags' where {@code
   * kubelet.config.k8s.io/v1beta1} says so: {@code readOnlyPort} 0, no anonymous requests, the
   * token webhook on and authorization mode Webhook.
   */
  public static final ServerSettings FILE_DEFAULTS =
      DEFAULTS
          .withReadOnlyPort(0)
          .withAuthentication(Authentication.FILE_DEFAULTS)
          .withAuthorization(Authorization.FILE_DEFAULTS);

  public ServerSettings {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(tlsCertFile, "tlsCertFile");
    Objects.requireNonNull(tlsPrivateKeyFile, "tlsPrivateKeyFile");
    Objects.requireNonNull(authentication, "authentication");
    Objects.requireNonNull(authorization, "authorization");
    Objects.requireNonNull(healthzBindAddress, "healthzBindAddress");
  }

  public ServerSettings withReadOnlyPort(int v) {
    return new ServerSettings(
        v,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withPort(int v) {
    return new ServerSettings(
        readOnlyPort,
        v,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withAddress(String v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        v,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withTlsCertFile(String v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        v,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withTlsPrivateKeyFile(String v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        v,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withAuthentication(Authentication v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        v,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withAuthorization(Authorization v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        v,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withHealthzPort(int v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        v,
        healthzBindAddress,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withHealthzBindAddress(String v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        v,
        enableDebuggingHandlers,
        enableSystemLogHandler);
  }

  public ServerSettings withEnableDebuggingHandlers(boolean v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        v,
        enableSystemLogHandler);
  }

  public ServerSettings withEnableSystemLogHandler(boolean v) {
    return new ServerSettings(
        readOnlyPort,
        port,
        address,
        tlsCertFile,
        tlsPrivateKeyFile,
        authentication,
        authorization,
        healthzPort,
        healthzBindAddress,
        enableDebuggingHandlers,
        v);
  }
}
