package io.jkubelet.config;

/**
 * The two certificate fields of upstream's KubeletConfiguration; the bootstrap kubeconfig and the
 * certificate directory are flags only, as upstream's.
 *
 * @param rotateCertificates whether the client certificate is renewed by CSRs before it expires;
 *     default false
 * @param serverTLSBootstrap whether serving certificates are requested by CSRs; default false
 */
public record CertificateSettings(boolean rotateCertificates, boolean serverTLSBootstrap) {
  public static final CertificateSettings DEFAULTS = new CertificateSettings(false, false);

  public CertificateSettings withRotateCertificates(boolean v) {
    return new CertificateSettings(v, serverTLSBootstrap);
  }

  public CertificateSettings withServerTLSBootstrap(boolean v) {
    return new CertificateSettings(rotateCertificates, v);
  }
}
