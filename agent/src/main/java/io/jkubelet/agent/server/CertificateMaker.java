package io.jkubelet.agent.server;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
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
 * What {@link ServingCerts} needs Bouncy Castle for, which the JDK has no public API for: making a
 * self-signed certificate, and reading a private key in an older PEM encoding. Kept apart so that
 * an agent whose certificate and key exist never loads Bouncy Castle's classes.
 */
final class CertificateMaker {
  private CertificateMaker() {}

  /**
   * The private key of a PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}) block.
   */
  static PrivateKey privateKey(Path file, String pem) throws IOException {
    try (PEMParser p = new PEMParser(new StringReader(pem))) {
      if (p.readObject() instanceof PEMKeyPair kp) {
        // The private key alone: a SEC1 key may leave out its public key.
        return new JcaPEMKeyConverter().getPrivateKey(kp.getPrivateKeyInfo());
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException(file + ": cannot read its private key: " + e.getMessage(), e);
    }
    throw new IOException(file + ": no private key in it");
  }

  /**
   * Makes a self-signed certificate (valid one year from {@code now}, for the host name, {@code
   * localhost}, the given addresses and 127.0.0.1) and its key, and writes them to {@code crt} and
   * {@code key}.
   */
  static ServingCerts selfSigned(
      Path crt, Path key, String hostname, List<String> addresses, Instant now) throws IOException {
    Files.createDirectories(crt.getParent());
    try {
      // An ECDSA P-256 key, where upstream makes an RSA 2048 one: as safe, and made in a
      // millisecond rather than the seconds a 2048-bit prime search takes on a busy node's first
      // start.
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair kp = gen.generateKeyPair();
      X509Certificate cert = sign(kp, hostname, addresses, now);
      // Written beside and renamed into place, the key first: a reader sees whole files (a crash
      // between the renames leaves a pair that does not match, which the next start replaces).
      Path keyTmp = key.resolveSibling(key.getFileName() + ".tmp");
      Path crtTmp = crt.resolveSibling(crt.getFileName() + ".tmp");
      Files.deleteIfExists(keyTmp);
      Files.createFile(
          keyTmp,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(keyTmp, pem(new JcaPKCS8Generator(kp.getPrivate(), null)));
      Files.writeString(crtTmp, pem(cert));
      Files.move(keyTmp, key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.move(crtTmp, crt, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
