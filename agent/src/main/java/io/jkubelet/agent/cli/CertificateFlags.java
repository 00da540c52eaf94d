package io.jkubelet.agent.cli;

import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The certificate flags (a picocli mixin of {@code run}), upstream's: {@code
 * --bootstrap-kubeconfig}, {@code --cert-dir} (which also holds the self-signed serving
 * certificate), and the two that overlay configuration fields ({@code --rotate-certificates},
 * {@code --rotate-server-certificates}).
 */
final class CertificateFlags {
  @Option(
      names = "--bootstrap-kubeconfig",
      paramLabel = "FILE",
      description =
          "A kubeconfig to request a client certificate with when --kubeconfig has no valid one;"
              + " the certificate goes to --cert-dir and --kubeconfig is written to name it.")
  Path bootstrapKubeconfig;

  @Option(
      names = "--cert-dir",
      paramLabel = "DIR",
      description =
          "Where the client certificates (kubelet-client-current.pem), the serving certificates"
              + " from CSRs (kubelet-server-current.pem) and the self-signed serving certificate"
              + " (kubelet.crt, kubelet.key) are kept (default <root-dir>/pki).")
  Path certDir;

  @Option(
      names = "--rotate-certificates",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Renew the client certificate by CSRs before it expires (rotateCertificates, default"
              + " false).")
  Boolean rotateCertificates;

  @Option(
      names = "--rotate-server-certificates",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Request the kubelet API's serving certificate by CSRs (signer"
              + " kubernetes.io/kubelet-serving) and renew it before it expires"
              + " (serverTLSBootstrap, default false); until one is approved the API serves its"
              + " self-signed certificate.")
  Boolean rotateServerCertificates;

  /** Sets the configuration fields of the flags that were given. */
  void overlay(KubeletConfiguration.Builder b, Map<String, String> flagOf) {
    RunCommand.overlay(
        flagOf,
        rotateCertificates,
        "rotateCertificates",
        "--rotate-certificates",
        v -> b.certificates(b.certificates().withRotateCertificates(v)));
    RunCommand.overlay(
        flagOf,
        rotateServerCertificates,
        "serverTLSBootstrap",
        "--rotate-server-certificates",
        v -> b.certificates(b.certificates().withServerTLSBootstrap(v)));
  }

  /** The certificate directory: {@code --cert-dir}, else {@code <root-dir>/pki}. */
  Path certDir(Path rootDir) {
    return (certDir == null ? rootDir.resolve("pki") : certDir).toAbsolutePath();
  }

  /** The options; an error names the flag (or the field, when the file set it). */
  CertificateOptions options(
      KubeletConfiguration config, Path kubeconfig, Path rootDir, Map<String, String> flagOf) {
    try {
      return new CertificateOptions(
          kubeconfig,
          bootstrapKubeconfig,
          certDir(rootDir),
          config.certificates().rotateCertificates(),
          config.certificates().serverTLSBootstrap());
    } catch (ConfigException e) {
      String flag = flagOf.get(e.field());
      throw flag == null ? e : new ConfigException(flag, e.problem(), e);
    }
  }
}
