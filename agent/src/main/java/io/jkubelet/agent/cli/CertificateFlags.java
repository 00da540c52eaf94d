package io.jkubelet.agent.cli;

import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The certificate flags (a picocli mixin of {@code run}), upstream's: {@code
 * --bootstrap-kubeconfig}, {@code --cert-dir} (which also holds the self-signed serving
 * certificate). The two that are settings ({@code --rotate-certificates}, {@code
 * --rotate-server-certificates}) come from {@code CertificateSettings}' declarations.
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

  /** The certificate directory: {@code --cert-dir}, else {@code <root-dir>/pki}. */
  Path certDir(Path rootDir) {
    return (certDir == null ? rootDir.resolve("pki") : certDir).toAbsolutePath();
  }

  /** The options; an error names the flag or the field. */
  CertificateOptions options(KubeletConfiguration config, Path kubeconfig, Path rootDir) {
    return new CertificateOptions(
        kubeconfig,
        bootstrapKubeconfig,
        certDir(rootDir),
        config.certificates().rotateCertificates(),
        config.certificates().serverTLSBootstrap());
  }
}
