package io.jkubelet.agent.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.TestApiServer.TestNamespace;
import io.jkubelet.agent.TestPods;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WatchPodObjects} against a real API server, as a node: the Node authorizer lets it watch,
 * with a name field selector, the secrets of pods bound to it, and nothing else.
 */
@Timeout(120)
class WatchPodObjectsApiTest {
  private static KubernetesClient admin;
  private static TestNamespace ns;
  private static final String NODE = "objects-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void namespace() {
    admin = TestApiServer.adminClient();
    ns = new TestNamespace(admin, "objects");
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
  }

  @AfterAll
  static void cleanUp() {
    if (ns != null) {
      ns.close();
    }
    if (admin != null) {
      TestApiServer.deleteNode(admin, NODE);
      admin.close();
    }
  }

  private static void secret(String name, String value) {
    admin
        .secrets()
        .inNamespace(ns.name)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withStringData(Map.of("k", value))
                .build())
        .createOr(r -> r.update());
  }

  private static Pod boundPod(String name, String secret) {
    Pod p =
        TestPods.builder(ns.name, name, null)
            .editSpec()
            .withNodeName(NODE)
            .addNewVolume()
            .withName("s")
            .withNewSecret()
            .withSecretName(secret)
            .endSecret()
            .endVolume()
            .addNewContainer()
            .withName("c")
            .withImage("jkubelet/busybox:1.35")
            .endContainer()
            .endSpec()
            .build();
    return admin.pods().inNamespace(ns.name).resource(p).create();
  }

  @Test
  void aNodeWatchesItsPodsSecretsByNameAndHearsOfChanges() throws Exception {
    secret("db", "one");
    Pod pod = boundPod("user", "db");
    Set<String> changed = new CopyOnWriteArraySet<>();
    try (KubernetesClient asNode = TestApiServer.nodeClient(NODE)) {
      WatchPodObjects objects = WatchPodObjects.create(asNode);
      objects.onChange(changed::addAll);
      objects.start();
      try {
        objects.register(pod);
        String uid = pod.getMetadata().getUid();
        // The watch's first list reports the secret, as an addition.
        await().atMost(Duration.ofSeconds(20)).until(() -> changed.contains(uid));
        assertThat(objects.secret(ns.name, "db").orElseThrow().getData())
            .containsEntry("k", "b25l");
        changed.clear();

        secret("db", "two");
        await().atMost(Duration.ofSeconds(5)).until(() -> changed.contains(uid));
        assertThat(objects.secret(ns.name, "db").orElseThrow().getData())
            .containsEntry("k", "dHdv");

        // Services, for the service environment variables, from the node's informer.
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    objects.services().stream()
                        .anyMatch(
                            sv ->
                                sv.getMetadata().getName().equals("kubernetes")
                                    && sv.getMetadata().getNamespace().equals("default")));

        // A secret none of its pods uses is none of the node's business.
        secret("unrelated", "x");
        assertThatThrownBy(() -> objects.secret(ns.name, "unrelated"))
            .isInstanceOf(PodObjects.Unavailable.class)
            .hasMessageContaining("forbidden");
      } finally {
        objects.stop();
      }
    }
  }

  @Test
  void aNodeMayRequestATokenBoundToItsPod() {
    Pod pod = boundPod("tokens", "db");
    try (KubernetesClient asNode = TestApiServer.nodeClient(NODE)) {
      var tr =
          asNode
              .serviceAccounts()
              .inNamespace(ns.name)
              .withName("default")
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(600L)
                      .withBoundObjectRef(
                          new BoundObjectReferenceBuilder()
                              .withApiVersion("v1")
                              .withKind("Pod")
                              .withName(pod.getMetadata().getName())
                              .withUid(pod.getMetadata().getUid())
                              .build())
                      .endSpec()
                      .build());
      assertThat(tr.getStatus().getToken()).isNotEmpty();
      assertThat(tr.getStatus().getExpirationTimestamp()).isNotEmpty();
    }
  }
}
