package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTest {
  @TempDir Path dir;

  private Path write(String yaml) throws Exception {
    Path f = Files.createDirectories(dir.resolve("etc")).resolve("kubelet.conf");
    Files.writeString(f, yaml);
    return f;
  }

  /** A kubeconfig whose current context uses user {@code u} of these {@code users} entries. */
  private static String userU(String users) {
    return """
        apiVersion: v1
        kind: Config
        current-context: c
        clusters: [{name: k, cluster: {server: "https://api:6443"}}]
        contexts: [{name: c, context: {cluster: k, user: u}}]
        users:
        """
        + users;
  }

  @Test
  void theCurrentContextsServerAndFilesNamedRelativeToTheKubeconfig() throws Exception {
    Path f =
        write(
            """
            apiVersion: v1
            kind: Config
            current-context: node
            clusters:
            - name: other
              cluster: {server: "https://other:6443"}
            - name: main
              cluster: {server: "https://api:6443", certificate-authority: pki/ca.crt}
            users:
            - name: kubelet
              user: {client-certificate: ../certs/node.crt, client-key: /abs/node.key}
            contexts:
            - name: node
              context: {cluster: main, user: kubelet, namespace: kube-system}
            """);
    Config c = Kubeconfig.load(f, java.time.Clock.systemUTC());
    assertThat(c.getMasterUrl()).startsWith("https://api:6443");
    assertThat(c.getCaCertFile()).isEqualTo(dir.resolve("etc/pki/ca.crt").toString());
    assertThat(c.getClientCertFile()).isEqualTo(dir.resolve("certs/node.crt").toString());
    assertThat(c.getClientKeyFile()).isEqualTo("/abs/node.key");
    assertThat(c.getNamespace()).isEqualTo("kube-system");
  }

  @Test
  void aBearerToken() throws Exception {
    Path f =
        write(
            """
            apiVersion: v1
            kind: Config
            current-context: c
            clusters: [{name: k, cluster: {server: "https://api:6443", insecure-skip-tls-verify: true}}]
            users: [{name: u, user: {token: s3cret}}]
            contexts: [{name: c, context: {cluster: k, user: u}}]
            """);
    Config c = Kubeconfig.load(f, java.time.Clock.systemUTC());
    assertThat(c.getAutoOAuthToken()).isEqualTo("s3cret");
    assertThat(c.isTrustCerts()).isTrue();
  }

  @Test
  void aTokenFileNamedRelativeToTheKubeconfigIsReadAgainAfterAMinute() throws Exception {
    Path f =
        write(
            userU(
                """
                - {name: other, user: {tokenFile: /nowhere}}
                - {name: u, user: {tokenFile: tokens/node.token}}
                """));
    Path token = Files.createDirectories(dir.resolve("etc/tokens")).resolve("node.token");
    Files.writeString(token, "first\n");
    FakeClock clock = new FakeClock();
    Config c = Kubeconfig.load(f, clock);
    assertThat(c.getOauthTokenProvider().getToken()).isEqualTo("first");

    Files.writeString(token, "rotated");
    clock.step(Duration.ofSeconds(59));
    assertThat(c.getOauthTokenProvider().getToken()).isEqualTo("first");
    clock.step(Duration.ofSeconds(1));
    assertThat(c.getOauthTokenProvider().getToken()).isEqualTo("rotated");

    Files.delete(token); // gone: the last token is kept
    clock.step(Duration.ofMinutes(1));
    assertThat(c.getOauthTokenProvider().getToken()).isEqualTo("rotated");
    // The clients copy the configuration; the provider goes with it.
    assertThat(new ConfigBuilder(c).build().getOauthTokenProvider().getToken())
        .isEqualTo("rotated");
  }

  @Test
  void aTokenWinsOverATokenFileAndAnUnreadableTokenFileIsAnError() throws Exception {
    Path both = write(userU("- {name: u, user: {token: inline, tokenFile: /nowhere}}\n"));
    Config c = Kubeconfig.load(both, java.time.Clock.systemUTC());
    assertThat(c.getOauthTokenProvider()).isNull();
    assertThat(c.getAutoOAuthToken()).isEqualTo("inline");

    Path missing = write(Files.readString(both).replace("token: inline, ", ""));
    assertThatThrownBy(() -> Kubeconfig.load(missing, java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--kubeconfig")
        .hasMessageContaining("the token file /nowhere cannot be read");
  }

  @Test
  void aKubeconfigThatCannotBeUsedIsAnErrorNamingTheFlag() throws Exception {
    assertThatThrownBy(() -> Kubeconfig.load(dir.resolve("missing"), java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--kubeconfig")
        .hasMessageContaining("cannot read");
    Path noServer = write("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n");
    assertThatThrownBy(() -> Kubeconfig.load(noServer, java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("names no server");
    Path noCluster =
        write(
            """
            apiVersion: v1
            kind: Config
            current-context: c
            clusters: [{name: k, cluster: {server: "https://api:6443"}}]
            contexts: [{name: c, context: {cluster: gone, user: u}}]
            """);
    assertThatThrownBy(() -> Kubeconfig.load(noCluster, java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("names no server");
    Path garbage = write("clusters: {this is: [not, a kubeconfig");
    assertThatThrownBy(() -> Kubeconfig.load(garbage, java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not a usable kubeconfig");
    Path empty = write("");
    assertThatThrownBy(() -> Kubeconfig.load(empty, java.time.Clock.systemUTC()))
        .isInstanceOf(ConfigException.class);
  }
}
