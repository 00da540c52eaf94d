package io.jkubelet.config;

/**
 * The two certificate settings of upstream's KubeletConfiguration; the bootstrap kubeconfig and the
 * certificate directory are flags only, as upstream's.
 */
public record CertificateSettings(
    @Field(
            flag = "--rotate-certificates",
            value = "false",
            doc = "Renew the client certificate by CSRs before it expires")
        boolean rotateCertificates,
    @Field(
            flag = "--rotate-server-certificates",
            value = "false",
            doc =
                "Request the kubelet API's serving certificate by CSRs (signer"
                    + " kubernetes.io/kubelet-serving) and renew it before it expires; until one"
                    + " is approved the API serves its self-signed certificate")
        boolean serverTLSBootstrap) {
  public static final CertificateSettings DEFAULTS =
      Settings.defaults(CertificateSettings.class, false);
}
