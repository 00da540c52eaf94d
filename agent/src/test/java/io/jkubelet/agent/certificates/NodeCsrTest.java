package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.certificates.SigningRequests.Csr;
import java.security.interfaces.ECPublicKey;
import java.util.List;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;
import org.junit.jupiter.api.Test;

class NodeCsrTest {
  private final NodeCsr csr = NodeCsr.create("worker-1", NodeCsr.newKey());

  @Test
  void theRequestIsForTheNodesIdentityWithAP256KeyAndVerifies() throws Exception {
    PKCS10CertificationRequest parsed = NodeCsr.parse(csr.pem());

    assertThat(parsed.getSubject().getRDNs(BCStyle.CN)[0].getFirst().getValue().toString())
        .isEqualTo("system:node:worker-1");
    assertThat(parsed.getSubject().getRDNs(BCStyle.O)[0].getFirst().getValue().toString())
        .isEqualTo("system:nodes");
    var publicKey = new JcaPKCS10CertificationRequest(parsed).getPublicKey();
    assertThat(publicKey).isInstanceOf(ECPublicKey.class);
    assertThat(((ECPublicKey) publicKey).getParams().getCurve().getField().getFieldSize())
        .isEqualTo(256);
    assertThat(publicKey.getEncoded()).isEqualTo(csr.key().getPublic().getEncoded());
    assertThat(parsed.isSignatureValid(new JcaContentVerifierProviderBuilder().build(publicKey)))
        .isTrue();
    assertThat(csr.pem()).startsWith("-----BEGIN CERTIFICATE REQUEST-----\n");
  }

  @Test
  void theNameIsADigestOfKeySubjectAndUsages() {
    NodeCsr again = NodeCsr.create("worker-1", csr.key());
    NodeCsr otherKey = NodeCsr.create("worker-1", NodeCsr.newKey());
    NodeCsr otherNode = NodeCsr.create("worker-2", csr.key());

    assertThat(csr.name()).matches("node-csr-[A-Za-z0-9_-]{43}");
    assertThat(again.name()).isEqualTo(csr.name());
    assertThat(again.pem()).isNotEqualTo(csr.pem()); // ECDSA signatures are randomized
    assertThat(otherKey.name()).isNotEqualTo(csr.name());
    assertThat(otherNode.name()).isNotEqualTo(csr.name());
  }

  @Test
  void theDigestSeparatesItsParts() {
    var key = csr.key().getPublic();
    assertThat(NodeCsr.digestedName(key, "system:node:foo", List.of("bar"), List.of()))
        .isNotEqualTo(NodeCsr.digestedName(key, "system:node:foob", List.of("ar"), List.of()));
  }

  @Test
  void anExistingCsrOfTheSameKeyIsCompatibleAndOfAnotherKeyIsNot() {
    NodeCsr again = NodeCsr.create("worker-1", csr.key());
    NodeCsr otherKey = NodeCsr.create("worker-1", NodeCsr.newKey());

    assertThat(csr.incompatibility(existing(again.pem(), NodeCsr.SIGNER))).isEmpty();
    assertThat(csr.incompatibility(existing(otherKey.pem(), NodeCsr.SIGNER)))
        .hasValueSatisfying(p -> assertThat(p).contains("another key"));
    assertThat(csr.incompatibility(existing(again.pem(), "example.com/other")))
        .hasValueSatisfying(p -> assertThat(p).contains("signerNames differ"));
    assertThat(
            csr.incompatibility(
                existing(NodeCsr.create("worker-9", csr.key()).pem(), NodeCsr.SIGNER)))
        .hasValueSatisfying(p -> assertThat(p).contains("subjects differ"));
  }

  private static Csr existing(String pem, String signer) {
    return new Csr("x", "uid", "1", pem, signer, NodeCsr.USAGES, List.of(), "");
  }
}
