package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.certificates.CertificateEvent;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class ClientCertificatesTest {
  @TempDir Path dir;

  record Recorded(ObjectReference ref, EventType type, String reason, String message) {}

  private final List<Recorded> recorded = new ArrayList<>();

  private ClientCertificates wiring(CertificateOptions options) {
    return new ClientCertificates(
        options,
        "node-a",
        Time.system(),
        (ref, type, reason, message) -> recorded.add(new Recorded(ref, type, reason, message)));
  }

  private Path tokenKubeconfig(String name) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:1"}
        contexts:
        - name: n
          context: {cluster: c, user: u}
        current-context: n
        users:
        - name: u
          user: {token: abcdef.0123456789abcdef}
        """);
    return file;
  }

  @Test
  void aCertificateDirectoryThatCannotBeWrittenIsAConfigErrorNamingIt() throws Exception {
    Path notADir = Files.writeString(dir.resolve("file"), "x");
    Path certDir = notADir.resolve("pki");
    ClientCertificates w =
        wiring(
            CertificateOptions.of(
                dir.resolve("kubelet.conf"),
                tokenKubeconfig("bootstrap-kubelet.conf"),
                certDir,
                true,
                false));

    assertThatThrownBy(w::load)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--cert-dir")
        .hasMessageContaining(certDir.toString());
  }

  @Test
  void aKubeconfigWithATokenIsLeftToTheClientsAndHasNoCertificateToWatch() throws Exception {
    ClientCertificates w =
        wiring(
            CertificateOptions.of(
                tokenKubeconfig("kubelet.conf"), null, dir.resolve("pki"), false, false));

    var config = w.load();
    w.start();

    assertThat(config.getMasterUrl()).contains("127.0.0.1:1");
    assertThat(w.healthy()).isEqualTo(Health.OK);
    assertThat(Files.exists(dir.resolve("pki"))).as("no bootstrap, no store").isFalse();
    w.stop();
  }

  @Test
  void certificateEventsAreEventsOnTheNode() {
    var listener =
        ClientCertificates.events(
            (ref, type, reason, message) -> recorded.add(new Recorded(ref, type, reason, message)),
            "node-a");

    listener.on(new CertificateEvent.Rotated("CN=system:node:node-a", "client"));
    listener.on(
        new CertificateEvent.RequestFailed("401 Unauthorized", Duration.ofSeconds(2), "client"));

    assertThat(recorded)
        .extracting(
            r -> r.ref().getKind() + "/" + r.ref().getName(), Recorded::type, Recorded::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "Node/node-a", EventType.Normal, CertificateEvent.ROTATED),
            org.assertj.core.groups.Tuple.tuple(
                "Node/node-a", EventType.Warning, CertificateEvent.REQUEST_FAILED));
    assertThat(recorded.get(1).message()).contains("401 Unauthorized");
  }
}
