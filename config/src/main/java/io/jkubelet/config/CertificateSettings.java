package io.jkubelet.config;

/**
 * The certificates' settings: the two of upstream's KubeletConfiguration, and the bootstrap
 * kubeconfig and the certificate directory, which are flags only, as upstream's.
 */
public record CertificateSettings(
    @Field(doc = "Renew the client certificate by CSRs before it expires")
        boolean rotateCertificates,
    @Field(
            flag = "--rotate-server-certificates",
            doc =
                "Request the kubelet API's serving certificate by CSRs (signer"
                    + " kubernetes.io/kubelet-serving) and renew it before it expires; until one"
                    + " is approved the API serves its self-signed certificate")
        boolean serverTLSBootstrap,
    @Field(
            file = Field.FLAG_ONLY,
            flag = {"--bootstrap-kubeconfig", "--experimental-bootstrap-kubeconfig"},
            label = "FILE",
            doc =
                "A kubeconfig to request a client certificate with when --kubeconfig has no valid"
                    + " one; the certificate goes to --cert-dir and --kubeconfig is written to name"
                    + " it")
        String bootstrapKubeconfig,
    @Field(
            file = Field.FLAG_ONLY,
            doc =
                "Where the client certificates (kubelet-client-current.pem), the serving"
                    + " certificates from CSRs (kubelet-server-current.pem) and the self-signed"
                    + " serving certificate (kubelet.crt, kubelet.key) are kept; none:"
                    + " <root-dir>/pki")
        String certDir) {
  public static final CertificateSettings DEFAULTS =
      Settings.defaults(CertificateSettings.class, false);
}
