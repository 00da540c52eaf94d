package io.jkubelet.config;

import java.util.List;

/** The kubelet API's TLS: its serving certificate and key, cipher suites and lowest version. */
public record ServingTlsSettings(
    @Field(
            doc =
                "The serving certificate, PEM, intermediates after it; without it a self-signed"
                    + " one is made in --cert-dir")
        String tlsCertFile,
    @Field(doc = "The serving certificate's key, PEM") String tlsPrivateKeyFile,
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
        String tlsMinVersion) {}
