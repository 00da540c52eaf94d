package io.jkubelet.agent;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.File;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * The real kube-apiserver that cluster-mode tests run against: its admin kubeconfig comes from
 * {@code JKUBELET_TEST_KUBECONFIG}, which {@code deploy/scripts/k8s-up.sh} prints. Tests fail,
 * never skip, when it is missing.
 */
public final class TestApiServer {
  public static final String ENV = "JKUBELET_TEST_KUBECONFIG";

  private TestApiServer() {}

  /** The admin kubeconfig; fails the test with what to do when there is none. */
  public static File kubeconfig() {
    String path = System.getenv(ENV);
    if (path == null || path.isBlank()) {
      throw new IllegalStateException(
          ENV
              + " is not set. These tests need a real kube-apiserver: start one with"
              + " `deploy/scripts/k8s-up.sh STATE_DIR` (it prints the admin kubeconfig's path) and"
              + " run Maven with "
              + ENV
              + "=<that path>; stop it with `deploy/scripts/k8s-down.sh STATE_DIR`.");
    }
    File f = new File(path);
    if (!f.isFile()) {
      throw new IllegalStateException(
          ENV + "=" + path + " is not a file; deploy/scripts/k8s-up.sh prints the right path");
    }
    return f;
  }

  /**
   * Deletes a Node the way a test should on a control plane that allocates pod CIDRs: once the
   * controller manager's range allocator has written {@code spec.podCIDR}. v1.20's allocator
   * re-queues a CIDR update for a node that is gone at once and forever, which busy-loops the
   * controller manager for the rest of the run and slows every later test. Waits at most 30 s for
   * the CIDR (a control plane without {@code --allocate-node-cidrs} never writes one).
   */
  public static void deleteNode(KubernetesClient admin, String name) {
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                var node = admin.nodes().withName(name).get();
                return node == null
                    || (node.getSpec() != null && node.getSpec().getPodCIDR() != null);
              });
    } catch (org.awaitility.core.ConditionTimeoutException noCidr) {
      // No allocator on this control plane: nothing is queued for the node.
    }
    admin.nodes().withName(name).delete();
  }

  /** An admin client for the test's own requests. */
  public static KubernetesClient adminClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig())).build();
  }

  /**
   * A client for the code under test: admin credentials, no request retries inside fabric8, and
   * optionally another server URL (a closed port, a proxy).
   */
  public static KubernetesClient client(String masterUrl) {
    Config config = Config.fromKubeconfig(kubeconfig());
    if (masterUrl != null) {
      config.setMasterUrl(masterUrl);
    }
    config.setRequestRetryBackoffLimit(0);
    config.setRequestTimeout(5000);
    config.setConnectionTimeout(2000);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * {@link #client(String) client(null)} acting as node {@code node}: the admin impersonates {@code
   * system:node:<node>} in {@code system:nodes}, so the Node authorizer and NodeRestriction hold
   * the code under test to what a kubelet may do.
   */
  public static KubernetesClient nodeClient(String node) {
    return nodeClient(node, b -> b);
  }

  /** As {@link #nodeClient(String)}, with the builder adapted first (an interceptor, say). */
  public static KubernetesClient nodeClient(
      String node, java.util.function.UnaryOperator<KubernetesClientBuilder> adapt) {
    Config config = Config.fromKubeconfig(kubeconfig());
    config.setImpersonateUsername("system:node:" + node);
    config.setImpersonateGroups("system:nodes");
    config.setRequestRetryBackoffLimit(0);
    config.setRequestTimeout(5000);
    config.setConnectionTimeout(2000);
    return adapt.apply(new KubernetesClientBuilder().withConfig(config)).build();
  }

  /** A client for a server that is not there: no kubeconfig needed. */
  public static KubernetesClient unreachableClient(int port) {
    Config config =
        Config.builder()
            .withMasterUrl("https://127.0.0.1:" + port)
            .withTrustCerts(true)
            .withRequestRetryBackoffLimit(0)
            .withRequestTimeout(2000)
            .withConnectionTimeout(1000)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * A namespace of the test's own. Creating it waits for the {@code default} service account that
   * the controller manager makes, which the ServiceAccount admission plugin wants before any pod.
   * Closing it deletes its pods at once and then the namespace, which the namespace controller
   * empties and removes.
   */
  public static final class TestNamespace implements AutoCloseable {
    private final KubernetesClient admin;
    public final String name;

    public TestNamespace(KubernetesClient admin, String prefix) {
      this.admin = admin;
      this.name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
    }

    /**
     * Creates a pod bound to {@code node}, with one busybox container per name (and the
     * service-account token volume that admission adds), and returns it as the API server stored
     * it.
     */
    public Pod createPod(
        String pod, String node, Map<String, String> annotations, String... containers) {
      PodBuilder b =
          new PodBuilder()
              .withNewMetadata()
              .withName(pod)
              .withNamespace(name)
              .withAnnotations(annotations)
              .endMetadata()
              .withNewSpec()
              .withNodeName(node)
              .endSpec();
      for (String c : containers) {
        b.editSpec()
            .addNewContainer()
            .withName(c)
            .withImage("jkubelet/busybox:1.35")
            .withCommand("sleep", "3600")
            .endContainer()
            .endSpec();
      }
      return admin.pods().inNamespace(name).resource(b.build()).create();
    }

    @Override
    public void close() {
      admin.pods().inNamespace(name).withGracePeriod(0).delete();
      admin.namespaces().withName(name).delete();
    }
  }
}
