package io.jkubelet.agent.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The serving certificate: read from PEM files ({@code --tls-cert-file}/{@code
 * --tls-private-key-file}), or, as upstream does without them, a self-signed one kept in {@code
 * <cert-dir>/kubelet.crt} and {@code kubelet.key}, made once and reused while both files exist.
 *
 * <p>Certificates and PKCS#8 keys (what jkubelet writes, and {@code openssl} by default) are read
 * with the JDK alone; {@link CertificateMaker} (Bouncy Castle) only makes a certificate or reads a
 * key in an older encoding (PKCS#1 RSA, SEC1 EC). NOTE: Bouncy Castle's jars are signed, so each
 * start that loads them verifies their signatures, and the class-data archive cannot hold their
 * classes: 158 classes read and verified while the node starts, which a restart no longer pays.
 */
public record ServingCerts(PrivateKey key, List<X509Certificate> chain) {
  /** {@code -----BEGIN label-----}, its base64 body and the matching end line. */
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  /** The key algorithms a PKCS#8 key is tried with, most common first. */
  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

  public ServingCerts {
    chain = List.copyOf(chain);
  }

  /** Reads a certificate chain and its private key (PKCS#1, PKCS#8 or EC) from PEM files. */
  public static ServingCerts read(Path certFile, Path keyFile) throws IOException {
    return new ServingCerts(readKey(keyFile), readCerts(certFile));
  }

  /** Every certificate of a PEM file, in order; other blocks in it (a key, say) are skipped. */
  public static List<X509Certificate> readCerts(Path file) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(file)) {
        if (b.label().equals("CERTIFICATE")) {
          out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der())));
        }
      }
    } catch (CertificateException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IOException(file + ": no certificate in it");
    }
    return out;
  }

  private static PrivateKey readKey(Path file) throws IOException {
    for (Block b : blocks(file)) {
      switch (b.label()) {
        case "PRIVATE KEY" -> {
          return pkcs8(file, b.der());
        }
        case "RSA PRIVATE KEY", "EC PRIVATE KEY" -> {
          return CertificateMaker.privateKey(file, b.text());
        }
        default -> {}
      }
    }
    throw new IOException(file + ": no private key in it");
  }

  private static PrivateKey pkcs8(Path file, byte[] der) throws IOException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // not this algorithm's key: the next
      }
    }
    throw new IOException(file + ": the private key is none of " + KEY_ALGORITHMS);
  }

  /** A PEM block: its label, its bytes and its whole text (from its begin line to its end line). */
  private record Block(String label, byte[] der, String text) {}

  private static List<Block> blocks(Path file) throws IOException {
    // Latin-1 reads any byte, so that stray text around the blocks never fails the read.
    String pem = Files.readString(file, StandardCharsets.ISO_8859_1);
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      byte[] der;
      try {
        der = Base64.getMimeDecoder().decode(m.group(2));
      } catch (IllegalArgumentException e) {
        throw new IOException(file + ": its " + m.group(1) + " is not valid base64", e);
      }
      out.add(new Block(m.group(1), der, m.group()));
    }
    return out;
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
    return makeSelfSigned(certDir, hostname, addresses, clock);
  }

  /** A new self-signed certificate in {@code certDir}, replacing the one there. */
  public static ServingCerts makeSelfSigned(
      Path certDir, String hostname, List<String> addresses, Clock clock) throws IOException {
    return CertificateMaker.selfSigned(
        certDir.resolve("kubelet.crt"),
        certDir.resolve("kubelet.key"),
        hostname,
        addresses,
        clock.instant());
  }
}
