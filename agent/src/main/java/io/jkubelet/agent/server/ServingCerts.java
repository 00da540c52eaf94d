package io.jkubelet.agent.server;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The serving certificate: read from PEM files ({@code --tls-cert-file}/{@code
 * --tls-private-key-file}), or, as upstream does without them, a self-signed one kept in {@code
 * <cert-dir>/kubelet.crt} and {@code kubelet.key}, made once and reused while both files exist.
 */
public record ServingCerts(PrivateKey key, List<X509Certificate> chain) {
  public ServingCerts {
    chain = List.copyOf(chain);
  }

  /** Reads a certificate chain and its private key (PKCS#1, PKCS#8 or EC) from PEM files. */
  public static ServingCerts read(Path certFile, Path keyFile) throws IOException {
    return new ServingCerts(readKey(keyFile), readCerts(certFile));
  }

  /** Every certificate of a PEM file, in order. */
  public static List<X509Certificate> readCerts(Path file) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser p = new PEMParser(r)) {
      JcaX509CertificateConverter conv = new JcaX509CertificateConverter();
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof X509CertificateHolder h) {
          out.add(conv.getCertificate(h));
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IOException(file + ": no certificate in it");
    }
    return out;
  }

  private static PrivateKey readKey(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser p = new PEMParser(r)) {
      JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof PEMKeyPair kp) {
          return conv.getKeyPair(kp).getPrivate();
        }
        if (o instanceof PrivateKeyInfo info) {
          return conv.getPrivateKey(info);
        }
      }
    }
    throw new IOException(file + ": no private key in it");
  }

  /**
   * The self-signed certificate in {@code certDir}, made (valid one year from the clock's now, for
   * the host name, {@code localhost}, the given addresses and 127.0.0.1) when it is missing.
   */
  public static ServingCerts selfSigned(
      Path certDir, String hostname, List<String> addresses, Clock clock) throws IOException {
    Path crt = certDir.resolve("kubelet.crt");
    Path key = certDir.resolve("kubelet.key");
    if (Files.isRegularFile(crt) && Files.isRegularFile(key)) {
      return read(crt, key);
    }
    Files.createDirectories(certDir);
    try {
      // An ECDSA P-256 key, where upstream makes an RSA 2048 one: as safe, and made in a
      // millisecond
      // rather than the seconds a 2048-bit prime search takes on a busy node's first start.
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair kp = gen.generateKeyPair();
      X509Certificate cert = sign(kp, hostname, addresses, clock.instant());
      Files.writeString(crt, pem(cert));
      Files.writeString(key, pem(new JcaPKCS8Generator(kp.getPrivate(), null)));
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
      return new ServingCerts(kp.getPrivate(), List.of(cert));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot make a self-signed certificate: " + e.getMessage(), e);
    }
  }

  private static X509Certificate sign(
      KeyPair kp, String hostname, List<String> addresses, Instant now)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    List<GeneralName> names = new ArrayList<>();
    names.add(new GeneralName(GeneralName.dNSName, hostname));
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    List<String> ips = new ArrayList<>(addresses);
    ips.add("127.0.0.1");
    for (String ip : ips.stream().distinct().toList()) {
      if (!ip.isEmpty() && !ip.equals("0.0.0.0")) {
        names.add(new GeneralName(GeneralName.iPAddress, ip));
      }
    }
    X500Name subject = new X500Name("CN=" + hostname + "@" + now.getEpochSecond());
    var builder =
        new JcaX509v3CertificateBuilder(
                subject,
                BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(365))),
                subject,
                kp.getPublic())
            .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
            .addExtension(
                Extension.keyUsage,
                true,
                new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
            .addExtension(
                Extension.extendedKeyUsage,
                false,
                new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
            .addExtension(
                Extension.subjectAlternativeName,
                false,
                new GeneralNames(names.toArray(GeneralName[]::new)));
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
