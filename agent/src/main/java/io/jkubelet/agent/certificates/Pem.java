package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Errors;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM certificates and private keys. Certificates and PKCS#8 keys ({@code PRIVATE KEY}, what the
 * store writes) are read with the JDK alone; the older PKCS#1 ({@code RSA PRIVATE KEY}) and SEC1
 * ({@code EC PRIVATE KEY}) blocks that kubeadm and client-go write go through Bouncy Castle ({@link
 * LegacyKeys}), so an agent whose store holds its own files does not load Bouncy Castle to start.
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----", Pattern.DOTALL);

  private Pem() {}

  /** Thrown for PEM that holds no usable certificate or key. */
  static final class PemException extends Exception {
    PemException(String message) {
      super(message);
    }
  }

  /** The {@code CERTIFICATE} blocks, in order; at least one. */
  static List<X509Certificate> certificates(String pem) throws PemException {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      Matcher m = BLOCK.matcher(pem);
      while (m.find()) {
        if (m.group(1).equals("CERTIFICATE")) {
          out.add(
              (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der(m.group(2)))));
        }
      }
    } catch (CertificateException | IllegalArgumentException e) {
      throw Errors.withCause(new PemException("invalid certificate data: " + e.getMessage()), e);
    }
    if (out.isEmpty()) {
      throw new PemException("no CERTIFICATE block found");
    }
    return out;
  }

  /** The first private key block: {@code PRIVATE KEY}, {@code EC PRIVATE KEY} or RSA's. */
  static PrivateKey privateKey(String pem) throws PemException {
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      String type = m.group(1);
      try {
        switch (type) {
          case "PRIVATE KEY" -> {
            return pkcs8(der(m.group(2)));
          }
          case "EC PRIVATE KEY", "RSA PRIVATE KEY" -> {
            return LegacyKeys.privateKey(m.group());
          }
          default -> {}
        }
      } catch (GeneralSecurityException | RuntimeException e) {
        throw Errors.withCause(
            new PemException("invalid " + type + " block: " + e.getMessage()), e);
      }
    }
    throw new PemException("no private key block found");
  }

  /** The first {@code PUBLIC KEY} block (PKIX). */
  static PublicKey publicKey(String pem) throws PemException {
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      if (m.group(1).equals("PUBLIC KEY")) {
        byte[] der = der(m.group(2));
        for (String alg : List.of("EC", "RSA", "Ed25519")) {
          try {
            return KeyFactory.getInstance(alg).generatePublic(new X509EncodedKeySpec(der));
          } catch (GeneralSecurityException e) {
            // the next algorithm
          }
        }
        throw new PemException("invalid PUBLIC KEY block");
      }
    }
    throw new PemException("no PUBLIC KEY block found");
  }

  /** A certificate chain and its key, as upstream's {@code tls.X509KeyPair}: they must match. */
  static ClientCertificate pair(String certPem, String keyPem) throws PemException {
    List<X509Certificate> chain = certificates(certPem);
    PrivateKey key = privateKey(keyPem);
    if (!matches(chain.get(0).getPublicKey(), key)) {
      throw new PemException("the private key does not match the certificate's public key");
    }
    return new ClientCertificate(chain, key);
  }

  /** Certificates as {@code CERTIFICATE} blocks. */
  static String encode(List<X509Certificate> chain) {
    StringBuilder sb = new StringBuilder();
    for (X509Certificate c : chain) {
      try {
        sb.append(block("CERTIFICATE", c.getEncoded()));
      } catch (CertificateException e) {
        throw new IllegalArgumentException("cannot encode " + c.getSubjectX500Principal(), e);
      }
    }
    return sb.toString();
  }

  /** A key as a PKCS#8 {@code PRIVATE KEY} block. */
  static String encode(PrivateKey key) {
    return block("PRIVATE KEY", key.getEncoded());
  }

  static String block(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  /**
   * Whether the private key belongs to the public key: a signature with one verifies with the
   * other.
   */
  static boolean matches(PublicKey publicKey, PrivateKey key) {
    String alg =
        switch (key.getAlgorithm()) {
          case "EC" -> "SHA256withECDSA";
          case "RSA" -> "SHA256withRSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default -> null;
        };
    if (alg == null) {
      return publicKey.getAlgorithm().equals(key.getAlgorithm());
    }
    try {
      byte[] data = "jkubelet key check".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(data);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(publicKey);
      v.update(data);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    GeneralSecurityException last = null;
    for (String alg : List.of("EC", "RSA", "Ed25519")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw last;
  }

  private static byte[] der(String base64) {
    return Base64.getMimeDecoder().decode(base64);
  }
}
