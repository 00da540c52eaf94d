package io.jkubelet.agent.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.jkubelet.agent.TestApiServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kubeconfig read by {@link Kubeconfig}, used against a real kube-apiserver v1.20 ({@code
 * deploy/scripts/k8s-up.sh}; {@code JKUBELET_TEST_KUBECONFIG} names its kubeconfig).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KubeconfigApiTest {
  @TempDir Path dir;

  @Test
  void aTokenFileAuthenticatesEveryRequest() throws Exception {
    try (KubernetesClient admin = TestApiServer.adminClient();
        var ns = new TestApiServer.TestNamespace(admin, "token")) {
      // The namespace's default service account, whose token (v1.20) is in a secret of its own.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> !sa(admin, ns.name).getSecrets().isEmpty());
      String secret = sa(admin, ns.name).getSecrets().get(0).getName();
      Secret s = admin.secrets().inNamespace(ns.name).withName(secret).get();
      Files.write(dir.resolve("sa.token"), Base64.getDecoder().decode(s.getData().get("token")));
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(
          kubeconfig,
          """
          apiVersion: v1
          kind: Config
          current-context: c
          clusters: [{name: k, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
          users: [{name: u, user: {tokenFile: sa.token}}]
          contexts: [{name: c, context: {cluster: k, user: u}}]
          """
              .formatted(admin.getMasterUrl()),
          StandardCharsets.UTF_8);

      // Copied as the agent copies it for each of its clients.
      var config =
          new ConfigBuilder(Kubeconfig.load(kubeconfig, java.time.Clock.systemUTC()))
              .withRequestRetryBackoffLimit(1)
              .build();
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        // Nodes are not the service account's to list: the refusal names who asked.
        assertThatThrownBy(() -> client.nodes().list())
            .hasMessageContaining("system:serviceaccount:" + ns.name + ":default");
      }
    }
  }

  private static ServiceAccount sa(KubernetesClient admin, String ns) {
    return admin.serviceAccounts().inNamespace(ns).withName("default").get();
  }
}
