package io.jkubelet.agent.server;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throwaway CA for tests: client certificates and TLS contexts that use them. */
public final class TestPki {
  private static final AtomicLong SERIAL = new AtomicLong(1);
  public final KeyPair caKey;
  public final X509Certificate ca;

  public TestPki(String name) throws Exception {
    caKey = keys();
    ca = sign(new X500Name("CN=" + name), caKey, new X500Name("CN=" + name), caKey, true);
  }

  /** A client certificate with this subject (e.g. {@code CN=alice,O=admins}) and its key. */
  public record Client(KeyPair key, X509Certificate cert) {}

  /** The key of every client of this CA's: a new RSA key each would cost a tenth of a second. */
  private KeyPair clientKey;

  public synchronized Client client(String subject) throws Exception {
    if (clientKey == null) {
      clientKey = keys();
    }
    KeyPair kp = clientKey;
    return new Client(
        kp, sign(new X500Name(subject), kp, new X500Name("CN=test-ca"), caKey, false));
  }

  /** When every certificate of this CA's is valid: a year before 2026 until ten years after. */
  public static final Instant NOT_BEFORE = Instant.parse("2025-01-01T00:00:00Z");

  public static final Instant NOT_AFTER = Instant.parse("2036-01-01T00:00:00Z");

  /** A client TLS context presenting the client (or none) and trusting any server. */
  static SSLContext clientContext(Client client, X509Certificate serverCert) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", serverCert);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(trust);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    if (client != null) {
      ks.setKeyEntry(
          "client",
          client.key().getPrivate(),
          "pw".toCharArray(),
          new X509Certificate[] {client.cert()});
    }
    kmf.init(ks, "pw".toCharArray());
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
    return ctx;
  }

  private static KeyPair keys() throws Exception {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
    gen.initialize(2048);
    return gen.generateKeyPair();
  }

  private static X509Certificate sign(
      X500Name subject, KeyPair subjectKey, X500Name issuer, KeyPair issuerKey, boolean ca)
      throws Exception {
    var b =
        new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(NOT_BEFORE),
                Date.from(NOT_AFTER),
                subject,
                subjectKey.getPublic())
            .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    return new JcaX509CertificateConverter()
        .getCertificate(
            b.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKey.getPrivate())));
  }
}
