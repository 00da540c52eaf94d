package io.jkubelet.agent.certificates;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/** A test CA that signs certificates for a key and validity window of the test's choosing. */
final class TestCa {
  private static final AtomicLong SERIAL = new AtomicLong(100);
  final KeyPair key = NodeCsr.newKey();
  final X509Certificate cert;

  TestCa() {
    Instant now = Instant.now();
    cert =
        sign(
            new X500Name("CN=jkubelet-test-ca"),
            key.getPublic(),
            now.minus(Duration.ofDays(1)),
            now.plus(Duration.ofDays(3650)),
            true);
  }

  /** A certificate for the public key, from {@code notBefore} to {@code notAfter}. */
  X509Certificate issue(String subject, PublicKey publicKey, Instant notBefore, Instant notAfter) {
    return sign(new X500Name(subject), publicKey, notBefore, notAfter, false);
  }

  /** The certificate a signer gives a CSR, PEM. */
  String issue(String csrPem, Instant notBefore, Instant notAfter) {
    try {
      PKCS10CertificationRequest csr = NodeCsr.parse(csrPem);
      PublicKey pub =
          new org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest(csr).getPublicKey();
      X509Certificate signed = sign(csr.getSubject(), pub, notBefore, notAfter, false, sans(csr));
      return Pem.encode(List.of(signed));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A node's client certificate with a new key. */
  ClientCertificate node(String nodeName, Instant notBefore, Instant notAfter) {
    KeyPair k = NodeCsr.newKey();
    return new ClientCertificate(
        List.of(
            issue("O=system:nodes,CN=system:node:" + nodeName, k.getPublic(), notBefore, notAfter)),
        k.getPrivate());
  }

  /** The subject alternative names the request asks for (its extension request), if any. */
  private static Extension sans(PKCS10CertificationRequest csr) {
    for (var a :
        csr.getAttributes(
            org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.pkcs_9_at_extensionRequest)) {
      var extensions =
          org.bouncycastle.asn1.x509.Extensions.getInstance(a.getAttrValues().getObjectAt(0));
      Extension san = extensions.getExtension(Extension.subjectAlternativeName);
      if (san != null) {
        return san;
      }
    }
    return null;
  }

  private X509Certificate sign(
      X500Name subject, PublicKey publicKey, Instant notBefore, Instant notAfter, boolean ca) {
    return sign(subject, publicKey, notBefore, notAfter, ca, null);
  }

  private X509Certificate sign(
      X500Name subject,
      PublicKey publicKey,
      Instant notBefore,
      Instant notAfter,
      boolean ca,
      Extension san) {
    try {
      X500Name issuer = ca ? subject : new X500Name(cert.getSubjectX500Principal().getName());
      var b =
          new JcaX509v3CertificateBuilder(
              issuer,
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(notBefore),
              Date.from(notAfter),
              subject,
              publicKey);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (san != null) {
        b.addExtension(san);
      }
      return new JcaX509CertificateConverter()
          .getCertificate(
              b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
