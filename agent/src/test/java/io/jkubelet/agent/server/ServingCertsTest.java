package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --tls-cert-file} and {@code --tls-private-key-file} as operators write them: keys in each
 * PEM encoding {@code openssl} produces, chains, and files holding more than one kind of block.
 */
class ServingCertsTest {
  @TempDir Path dir;

  @Test
  void readsPkcs8Pkcs1AndSec1KeysAlike() throws Exception {
    KeyPair rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair p256 = ec.generateKeyPair();
    Path cert = write("cert.pem", pem("CERTIFICATE", new TestPki("ca").ca.getEncoded()));

    for (KeyPair kp : new KeyPair[] {rsa, p256}) {
      String pkcs8 = pem("PRIVATE KEY", kp.getPrivate().getEncoded());
      String traditional = traditional(kp);
      assertThat(traditional).containsPattern("BEGIN (RSA|EC) PRIVATE KEY");
      for (String key : new String[] {pkcs8, traditional}) {
        ServingCerts read = ServingCerts.read(cert, write("key.pem", key));
        assertThat(signsFor(read.key(), kp.getPublic())).as(key).isTrue();
      }
    }
  }

  @Test
  void aChainIsReadInOrderAndOtherBlocksAreSkipped() throws Exception {
    TestPki pki = new TestPki("ca");
    TestPki.Client leaf = pki.client("CN=node-a");
    Path bundle =
        write(
            "bundle.pem",
            "leaf certificate, then the CA\n"
                + pem("CERTIFICATE", leaf.cert().getEncoded())
                + pem("PRIVATE KEY", leaf.key().getPrivate().getEncoded())
                + pem("CERTIFICATE", pki.ca.getEncoded()));

    ServingCerts read = ServingCerts.read(bundle, bundle);

    assertThat(read.chain()).containsExactly(leaf.cert(), pki.ca);
    assertThat(read.key().getEncoded()).isEqualTo(leaf.key().getPrivate().getEncoded());
  }

  @Test
  void aFileWithoutWhatIsAskedIsAClearError() throws Exception {
    Path keyOnly = write("key.pem", pem("PRIVATE KEY", new byte[] {1, 2, 3}));
    Path certOnly = write("cert.pem", pem("CERTIFICATE", new TestPki("ca").ca.getEncoded()));
    Path broken =
        write("broken.pem", "-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n");

    assertThatThrownBy(() -> ServingCerts.readCerts(keyOnly))
        .isInstanceOf(IOException.class)
        .hasMessage(keyOnly + ": no certificate in it");
    assertThatThrownBy(() -> ServingCerts.read(certOnly, certOnly))
        .isInstanceOf(IOException.class)
        .hasMessage(certOnly + ": no private key in it");
    assertThatThrownBy(() -> ServingCerts.read(certOnly, keyOnly))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(keyOnly + ": the private key is none of");
    assertThatThrownBy(() -> ServingCerts.readCerts(broken))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(broken + ": ");
  }

  /** Whether what {@code key} signs verifies with {@code pub}: the two are a pair. */
  private static boolean signsFor(PrivateKey key, PublicKey pub) throws Exception {
    String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update("node-a".getBytes(StandardCharsets.UTF_8));
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(pub);
    verifier.update("node-a".getBytes(StandardCharsets.UTF_8));
    return verifier.verify(signature);
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  /**
   * The key as {@code openssl} wrote it before PKCS#8: PKCS#1 for RSA; SEC1 for EC, with the curve
   * and the public key in it as {@code openssl ecparam -genkey} writes them.
   */
  private static String traditional(KeyPair kp) throws IOException {
    if (kp.getPrivate() instanceof ECPrivateKey key) {
      var sec1 =
          new org.bouncycastle.asn1.sec.ECPrivateKey(
              256,
              key.getS(),
              SubjectPublicKeyInfo.getInstance(kp.getPublic().getEncoded()).getPublicKeyData(),
              SECObjectIdentifiers.secp256r1);
      return pem("EC PRIVATE KEY", sec1.getEncoded());
    }
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(kp);
    }
    return out.toString();
  }
}
