package io.jkubelet.agent.certificates;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * A node's certificate request, as upstream's {@code requestNodeCertificate} and its serving
 * certificate's template (pkg/kubelet/certificate/kubelet.go): subject {@code O=system:nodes,
 * CN=system:node:<nodeName>}, signed by the node's ECDSA P-256 key, for the {@link
 * CertificateKind}'s signer and usages ({@code kubernetes.io/kube-apiserver-client-kubelet} with
 * digital signature, key encipherment and client auth; or {@code kubernetes.io/kubelet-serving}
 * with server auth and the node's addresses as subject alternative names, in the request's
 * extensions).
 *
 * <p>The CSR object's name is upstream's {@code digestedName}: {@code node-csr-} and a SHA-512/256
 * digest of the public key, the subject and the usages. The same key and request give the same
 * name, so a retry finds its pending CSR (the API answers AlreadyExists) and waits on it instead of
 * filing another (kubernetes#77489).
 *
 * @param kind client or serving
 * @param nodeName the node
 * @param sans the subject alternative names ({@link Sans#NONE} for a client certificate)
 * @param key the key the certificate is for
 * @param name the CSR object's name
 * @param pem the PKCS#10 request, PEM ({@code CERTIFICATE REQUEST})
 */
record NodeCsr(
    CertificateKind kind, String nodeName, Sans sans, KeyPair key, String name, String pem) {
  static final String SIGNER = CertificateKind.CLIENT.signer();
  static final List<String> USAGES = CertificateKind.CLIENT.usages();
  static final String ORGANIZATION = "system:nodes";

  /** The client certificate request for the node with this key. */
  static NodeCsr create(String nodeName, KeyPair key) {
    return create(CertificateKind.CLIENT, nodeName, Sans.NONE, key);
  }

  /** The request of this kind for the node with this key and these names. */
  static NodeCsr create(CertificateKind kind, String nodeName, Sans sans, KeyPair key) {
    String cn = commonName(nodeName);
    X500Name subject =
        new X500NameBuilder(BCStyle.INSTANCE)
            .addRDN(BCStyle.O, ORGANIZATION)
            .addRDN(BCStyle.CN, cn)
            .build();
    try {
      var builder = new JcaPKCS10CertificationRequestBuilder(subject, key.getPublic());
      if (!sans.isEmpty()) {
        List<GeneralName> names = new java.util.ArrayList<>();
        sans.dnsNames().forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
        sans.ips().forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
        ExtensionsGenerator extensions = new ExtensionsGenerator();
        extensions.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
        builder.addAttribute(
            PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, extensions.generate());
      }
      PKCS10CertificationRequest csr =
          builder.build(
              new JcaContentSignerBuilder(signatureAlgorithm(key)).build(key.getPrivate()));
      String pem = Pem.block("CERTIFICATE REQUEST", csr.getEncoded());
      return new NodeCsr(
          kind,
          nodeName,
          sans,
          key,
          digestedName(key.getPublic(), cn, List.of(ORGANIZATION), kind.usages()),
          pem);
    } catch (OperatorCreationException | IOException e) {
      throw new IllegalStateException("unable to generate certificate request: " + e, e);
    }
  }

  static String commonName(String nodeName) {
    return "system:node:" + nodeName;
  }

  /** A fresh ECDSA P-256 key, as upstream's certificate manager makes for every new request. */
  static KeyPair newKey() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("unable to generate a new private key: " + e, e);
    }
  }

  /**
   * Upstream's {@code digestedName}: each part base64url-encoded (no padding) and followed by
   * {@code |}, so that two different inputs never hash the same stream; the public key as PKIX DER.
   */
  static String digestedName(
      PublicKey publicKey, String commonName, List<String> organizations, List<String> usages) {
    MessageDigest hash;
    try {
      hash = MessageDigest.getInstance("SHA-512/256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    Base64.Encoder encode = Base64.getUrlEncoder().withoutPadding();
    java.util.function.Consumer<byte[]> write =
        data -> {
          hash.update(encode.encode(data));
          hash.update((byte) '|');
        };
    write.accept(publicKey.getEncoded());
    write.accept(commonName.getBytes(StandardCharsets.UTF_8));
    organizations.forEach(o -> write.accept(o.getBytes(StandardCharsets.UTF_8)));
    usages.forEach(u -> write.accept(u.getBytes(StandardCharsets.UTF_8)));
    return "node-csr-" + encode.encodeToString(hash.digest());
  }

  /**
   * Why an existing CSR of the same name is not this request, as upstream's {@code
   * ensureCompatible}: its subject, its signer, and its key (its signature must verify with this
   * request's public key). Empty when it is this request. The requests' bytes differ even for the
   * same key, since ECDSA signatures are randomized.
   */
  java.util.Optional<String> incompatibility(SigningRequests.Csr existing) {
    PKCS10CertificationRequest theirs;
    PKCS10CertificationRequest ours;
    try {
      theirs = parse(existing.requestPem());
      ours = parse(pem);
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.of("unable to parse the existing request: " + e.getMessage());
    }
    if (!theirs.getSubject().equals(ours.getSubject())) {
      return java.util.Optional.of(
          "csr subjects differ: new: " + theirs.getSubject() + ", orig: " + ours.getSubject());
    }
    if (!existing.signerName().isEmpty() && !existing.signerName().equals(kind.signer())) {
      return java.util.Optional.of(
          "csr signerNames differ: new \""
              + existing.signerName()
              + "\", orig: \""
              + kind.signer()
              + "\"");
    }
    try {
      if (!Arrays.equals(
              theirs.getSubjectPublicKeyInfo().getEncoded(), key.getPublic().getEncoded())
          || !theirs.isSignatureValid(
              new JcaContentVerifierProviderBuilder().build(key.getPublic()))) {
        return java.util.Optional.of("the existing request was made with another key");
      }
    } catch (IOException | OperatorCreationException | PKCSException e) {
      return java.util.Optional.of(
          "error validating signature new CSR against old key: " + e.getMessage());
    }
    return java.util.Optional.empty();
  }

  static PKCS10CertificationRequest parse(String pem) throws IOException {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "-----BEGIN CERTIFICATE REQUEST-----([A-Za-z0-9+/=\\s]+)-----END CERTIFICATE"
                    + " REQUEST-----")
            .matcher(pem);
    if (!m.find()) {
      throw new IOException("PEM block type must be CERTIFICATE REQUEST");
    }
    return new PKCS10CertificationRequest(Base64.getMimeDecoder().decode(m.group(1)));
  }

  private static String signatureAlgorithm(KeyPair key) {
    return switch (key.getPrivate().getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      default ->
          throw new IllegalArgumentException(
              "unsupported key algorithm " + key.getPrivate().getAlgorithm());
    };
  }
}
