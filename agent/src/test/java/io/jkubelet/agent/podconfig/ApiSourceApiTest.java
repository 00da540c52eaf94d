package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.TestApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The API source against a real kube-apiserver v1.20 ({@code deploy/scripts/k8s-up.sh}; {@code
 * JKUBELET_TEST_KUBECONFIG} names its kubeconfig), as the node it watches for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ApiSourceApiTest {
  @Test
  void deliversTheNodesPodsWithoutTheirManagedFields() {
    String node = "node-source-" + System.nanoTime();
    List<List<Pod>> sets = new CopyOnWriteArrayList<>();
    try (KubernetesClient admin = TestApiServer.adminClient();
        var ns = new TestApiServer.TestNamespace(admin, "source");
        KubernetesClient client = TestApiServer.nodeClient(node)) {
      Pod created = ns.createPod("web", node, Map.of(), "c1");
      assertThat(created.getMetadata().getManagedFields())
          .as("as the server keeps it")
          .isNotEmpty();
      ns.createPod("elsewhere", node + "-other", Map.of(), "c1");

      ApiSource source = new ApiSource(client, node, sets::add);
      source.start();
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !sets.isEmpty() && sets.get(sets.size() - 1).size() == 1);
        Pod seen = sets.get(sets.size() - 1).get(0);
        assertThat(seen.getMetadata().getName()).isEqualTo("web");
        assertThat(seen.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
        assertThat(seen.getSpec().getContainers()).hasSize(1);
        assertThat(seen.getMetadata().getManagedFields()).isNullOrEmpty();

        // An update arrives the same way.
        admin
            .pods()
            .inNamespace(ns.name)
            .withName("web")
            .edit(
                p ->
                    new PodBuilder(p)
                        .editMetadata()
                        .addToLabels("edited", "yes")
                        .endMetadata()
                        .build());
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  Pod last = sets.get(sets.size() - 1).get(0);
                  return last.getMetadata().getLabels() != null
                      && "yes".equals(last.getMetadata().getLabels().get("edited"));
                });
        assertThat(sets.get(sets.size() - 1).get(0).getMetadata().getManagedFields())
            .isNullOrEmpty();
      } finally {
        source.stop();
      }
    }
  }
}
