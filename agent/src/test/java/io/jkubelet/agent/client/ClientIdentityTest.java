package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.certificates.CertificateKeyManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClientIdentityTest {
  private final ClientIdentity identity =
      new ClientIdentity(new CertificateKeyManager(Optional::empty));
  private final List<String> closed = new ArrayList<>();

  @Test
  void renewClosesTheConnectionsStillOpenOnce() {
    identity.track("a", () -> closed.add("a"));
    identity.track("b", () -> closed.add("b"));
    identity.track("c", () -> closed.add("c"));
    identity.untrack("b");

    assertThat(identity.renew()).isEqualTo(2);
    assertThat(closed).containsExactlyInAnyOrder("a", "c");
    assertThat(identity.openConnections()).isZero();

    assertThat(identity.renew()).as("nothing left to close").isZero();
    assertThat(closed).hasSize(2);
  }
}
