package io.jkubelet.agent.cli;

import io.jkubelet.config.Authentication;
import io.jkubelet.config.Authorization;
import io.jkubelet.config.Durations;
import io.jkubelet.config.KubeletConfiguration;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * The kubelet API's flags (a picocli mixin of {@code run}): its port and certificate, and how it
 * authenticates and authorizes requests. Each overlays the configuration field named in its
 * description when given.
 */
final class ServerFlags {
  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port of the kubelet API (HTTPS) (port, default 10250).")
  Integer port;

  @Option(
      names = "--tls-cert-file",
      paramLabel = "FILE",
      description =
          "The serving certificate, PEM, intermediates after it (tlsCertFile); without it a"
              + " self-signed one is made in --cert-dir.")
  String tlsCertFile;

  @Option(
      names = "--tls-private-key-file",
      paramLabel = "FILE",
      description = "The serving certificate's key, PEM (tlsPrivateKeyFile).")
  String tlsPrivateKeyFile;

  @Option(
      names = "--client-ca-file",
      paramLabel = "FILE",
      description =
          "CAs that client certificates are verified against (authentication.x509.clientCAFile).")
  String clientCaFile;

  @Option(
      names = "--anonymous-auth",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Whether requests without credentials are served as system:anonymous"
              + " (authentication.anonymous.enabled, default true; false in a config file).")
  Boolean anonymousAuth;

  @Option(
      names = "--authentication-token-webhook",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Whether bearer tokens are checked with the TokenReview API"
              + " (authentication.webhook.enabled, default false; true in a config file).")
  Boolean tokenWebhook;

  @Option(
      names = "--authentication-token-webhook-cache-ttl",
      paramLabel = "DURATION",
      converter = GoDuration.class,
      description = "How long TokenReview answers are cached (authentication.webhook.cacheTTL).")
  Duration tokenWebhookCacheTtl;

  @Option(
      names = "--authorization-mode",
      paramLabel = "MODE",
      description =
          "AlwaysAllow or Webhook (SubjectAccessReview) (authorization.mode, default AlwaysAllow;"
              + " Webhook in a config file).")
  String authorizationMode;

  @Option(
      names = "--authorization-webhook-cache-authorized-ttl",
      paramLabel = "DURATION",
      converter = GoDuration.class,
      description = "(authorization.webhook.cacheAuthorizedTTL, default 5m)")
  Duration authorizedTtl;

  @Option(
      names = "--authorization-webhook-cache-unauthorized-ttl",
      paramLabel = "DURATION",
      converter = GoDuration.class,
      description = "(authorization.webhook.cacheUnauthorizedTTL, default 30s)")
  Duration unauthorizedTtl;

  @Option(
      names = "--healthz-port",
      paramLabel = "PORT",
      description = "Port of the plain-HTTP /healthz, 0 to disable (healthzPort, default 10248).")
  Integer healthzPort;

  @Option(
      names = "--healthz-bind-address",
      paramLabel = "IP",
      description = "Address of /healthz (healthzBindAddress, default 127.0.0.1).")
  String healthzBindAddress;

  @Option(
      names = "--enable-debugging-handlers",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Whether logs, exec, attach, port-forward and run are served"
              + " (enableDebuggingHandlers, default true).")
  Boolean enableDebuggingHandlers;

  @Option(
      names = "--enable-system-log-handler",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Whether /logs/ serves the node's log directory, with the debugging handlers"
              + " (enableSystemLogHandler, default false).")
  Boolean enableSystemLogHandler;

  @Option(
      names = "--container-log-max-size",
      paramLabel = "QUANTITY",
      description = "Size at which a container log file rotates (containerLogMaxSize, 10Mi).")
  String containerLogMaxSize;

  @Option(
      names = "--container-log-max-files",
      paramLabel = "N",
      description = "Log files kept per container (containerLogMaxFiles, default 5).")
  Integer containerLogMaxFiles;

  /** Overlays the given flags on the builder; records which flag set which field. */
  void overlay(KubeletConfiguration.Builder b, Map<String, String> flagOf) {
    RunCommand.overlay(flagOf, port, "port", "--port", v -> b.server(b.server().withPort(v)));
    RunCommand.overlay(
        flagOf,
        tlsCertFile,
        "tlsCertFile",
        "--tls-cert-file",
        v -> b.server(b.server().withTlsCertFile(v)));
    RunCommand.overlay(
        flagOf,
        tlsPrivateKeyFile,
        "tlsPrivateKeyFile",
        "--tls-private-key-file",
        v -> b.server(b.server().withTlsPrivateKeyFile(v)));
    RunCommand.overlay(
        flagOf,
        healthzPort,
        "healthzPort",
        "--healthz-port",
        v -> b.server(b.server().withHealthzPort(v)));
    RunCommand.overlay(
        flagOf,
        healthzBindAddress,
        "healthzBindAddress",
        "--healthz-bind-address",
        v -> b.server(b.server().withHealthzBindAddress(v)));
    RunCommand.overlay(
        flagOf,
        enableDebuggingHandlers,
        "enableDebuggingHandlers",
        "--enable-debugging-handlers",
        v -> b.server(b.server().withEnableDebuggingHandlers(v)));
    RunCommand.overlay(
        flagOf,
        enableSystemLogHandler,
        "enableSystemLogHandler",
        "--enable-system-log-handler",
        v -> b.server(b.server().withEnableSystemLogHandler(v)));
    RunCommand.overlay(
        flagOf,
        containerLogMaxSize,
        "containerLogMaxSize",
        "--container-log-max-size",
        v -> b.containerLogs(b.containerLogs().withContainerLogMaxSize(v)));
    RunCommand.overlay(
        flagOf,
        containerLogMaxFiles,
        "containerLogMaxFiles",
        "--container-log-max-files",
        v -> b.containerLogs(b.containerLogs().withContainerLogMaxFiles(v)));
    var a = b.server().authentication();
    b.server(
        b.server()
            .withAuthentication(
                new Authentication(
                    pick(
                        flagOf,
                        clientCaFile,
                        a.clientCAFile(),
                        "authentication.x509.clientCAFile",
                        "--client-ca-file"),
                    pick(
                        flagOf,
                        tokenWebhook,
                        a.webhookEnabled(),
                        "authentication.webhook.enabled",
                        "--authentication-token-webhook"),
                    pick(
                        flagOf,
                        tokenWebhookCacheTtl,
                        a.webhookCacheTTL(),
                        "authentication.webhook.cacheTTL",
                        "--authentication-token-webhook-cache-ttl"),
                    pick(
                        flagOf,
                        anonymousAuth,
                        a.anonymous(),
                        "authentication.anonymous.enabled",
                        "--anonymous-auth"))));
    var z = b.server().authorization();
    b.server(
        b.server()
            .withAuthorization(
                new Authorization(
                    pick(
                        flagOf,
                        authorizationMode,
                        z.mode(),
                        "authorization.mode",
                        "--authorization-mode"),
                    pick(
                        flagOf,
                        authorizedTtl,
                        z.cacheAuthorizedTTL(),
                        "authorization.webhook.cacheAuthorizedTTL",
                        "--authorization-webhook-cache-authorized-ttl"),
                    pick(
                        flagOf,
                        unauthorizedTtl,
                        z.cacheUnauthorizedTTL(),
                        "authorization.webhook.cacheUnauthorizedTTL",
                        "--authorization-webhook-cache-unauthorized-ttl"))));
  }

  private static <T> T pick(
      Map<String, String> flagOf, T flagValue, T current, String field, String flag) {
    if (flagValue == null) {
      return current;
    }
    flagOf.put(field, flag);
    return flagValue;
  }

  /**
   * The webhooks ask the API server, so they need cluster mode: upstream fails the same way ("no
   * client provided, cannot use webhook ...").
   */
  static void requireClientForWebhooks(KubeletConfiguration c, boolean cluster) {
    if (cluster) {
      return;
    }
    if (c.server().authentication().webhookEnabled()) {
      throw new io.jkubelet.config.ConfigException(
          "authentication.webhook.enabled",
          "no client provided (no --kubeconfig), cannot use webhook authentication");
    }
    if (c.server().authorization().mode().equals("Webhook")) {
      throw new io.jkubelet.config.ConfigException(
          "authorization.mode",
          "no client provided (no --kubeconfig), cannot use webhook authorization");
    }
  }

  /** A Go duration flag value ({@code 2m}, {@code 30s}). */
  static final class GoDuration implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return Durations.parse(value);
    }
  }
}
