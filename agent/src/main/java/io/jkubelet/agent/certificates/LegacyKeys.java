package io.jkubelet.agent.certificates;

import java.io.IOException;
import java.io.StringReader;
import java.security.PrivateKey;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/** PKCS#1 and SEC1 private keys, which the JDK cannot read, through Bouncy Castle. */
final class LegacyKeys {
  private LegacyKeys() {}

  static PrivateKey privateKey(String block) {
    try (PEMParser p = new PEMParser(new StringReader(block))) {
      if (p.readObject() instanceof PEMKeyPair kp) {
        // The private key alone: a SEC1 key may leave out its public key.
        return new JcaPEMKeyConverter().getPrivateKey(kp.getPrivateKeyInfo());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    throw new IllegalArgumentException("not a key pair");
  }
}
