package io.jkubelet.agent.nodeshutdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.TestApiServer.TestNamespace;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ShutdownSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shutdown's final pod statuses reach a real kube-apiserver ({@code JKUBELET_TEST_KUBECONFIG},
 * see {@code deploy/scripts/k8s-up.sh}) before logind's lock is let go: the real status manager
 * writes as the node, the pods' kills take a moment on a thread of their own (as a worker's), and
 * the API is read the moment the fake logind's lock is gone, without waiting.
 */
@Timeout(120)
class NodeShutdownApiTest {
  private static KubernetesClient admin;
  private static TestNamespace ns;

  @TempDir Path tmp;
  private final String node = "node-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void namespace() {
    admin = TestApiServer.adminClient();
    ns = new TestNamespace(admin, "shutdown");
  }

  @AfterAll
  static void cleanUp() {
    if (ns != null) {
      ns.close();
    }
    if (admin != null) {
      admin.close();
    }
  }

  /** Pods stopped as a worker would: the failed status at once, the final one after the kill. */
  private static final class WorkerPods implements NodeShutdownManager.Pods {
    final List<Pod> pods;
    final ApiStatusManager statuses;
    final Map<String, CountDownLatch> stopped = new ConcurrentHashMap<>();
    final List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();

    WorkerPods(List<Pod> pods, ApiStatusManager statuses) {
      this.pods = pods;
      this.statuses = statuses;
    }

    @Override
    public List<Pod> active() {
      return pods;
    }

    @Override
    public Optional<PodStatus> status(Pod pod) {
      return statuses.getPodStatus(pod.getMetadata().getUid());
    }

    @Override
    public void kill(Pod pod, PodStatus failed, Duration grace) {
      order.add(pod.getMetadata().getName());
      statuses.setPodStatus(pod, failed);
      CountDownLatch done = new CountDownLatch(1);
      stopped.put(pod.getMetadata().getUid(), done);
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  // The containers take a moment to stop; then the worker's last status.
                  done.await(300, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                statuses.setPodStatus(
                    pod, new PodStatusBuilder(failed).withHostIP("10.1.1.1").build());
                done.countDown();
              });
    }

    @Override
    public boolean awaitStopped(Collection<Pod> list, Duration timeout)
        throws InterruptedException {
      long end = System.nanoTime() + timeout.toNanos();
      for (Pod p : list) {
        long left = end - System.nanoTime();
        if (!stopped.get(p.getMetadata().getUid()).await(left, TimeUnit.NANOSECONDS)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public boolean awaitStatusesWritten(Collection<Pod> list, Duration timeout)
        throws InterruptedException {
      return statuses.awaitWritten(
          list.stream().map(p -> p.getMetadata().getUid()).toList(), timeout);
    }
  }

  @Test
  void theFinalStatusesAreAtTheApiServerWhenTheLockIsLetGo() throws Exception {
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
    KubernetesClient asNode = TestApiServer.nodeClient(node);
    ApiStatusManager statuses =
        new ApiStatusManager(
            asNode,
            Clock.systemUTC(),
            5,
            10,
            p -> false,
            uid -> Optional.empty(),
            Duration.ofSeconds(10));
    statuses.start();
    FakeLogind logind = new FakeLogind(null, Duration.ofSeconds(60));
    NodeShutdownManager manager = null;
    try {
      List<Pod> pods = new ArrayList<>();
      for (String name : List.of("web", "api", "dns")) {
        Pod p = ns.createPod(name + "-" + node, node, Map.of(), "app");
        if (name.equals("dns")) {
          // A critical pod for the manager (the API keeps its own priority).
          p = new PodBuilder(p).editSpec().withPriority(2_000_001_000).endSpec().build();
        }
        statuses.setPodStatus(
            p,
            new PodStatusBuilder()
                .withPhase("Running")
                .withStartTime(Instant.now().toString())
                .build());
        pods.add(p);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> pods.stream().allMatch(p -> "Running".equals(phase(p))));
      WorkerPods workers = new WorkerPods(pods, statuses);
      manager =
          NodeShutdownManager.create(
              true,
              new NodeShutdownManager.Options(
                  new ShutdownSettings(Duration.ofSeconds(20), Duration.ofSeconds(5)), tmp),
              workers,
              () -> logind,
              new Time(Clock.systemUTC(), Sleeper.SYSTEM, Schedulers.system()));
      manager.start();
      assertThat(logind.held()).isTrue();

      logind.prepareForShutdown(true);
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> !logind.held());

      // Read at once: the lock went only once the API held them.
      for (Pod p : pods) {
        PodStatus got =
            admin.pods().inNamespace(ns.name).withName(p.getMetadata().getName()).get().getStatus();
        assertThat(got.getPhase()).as(p.getMetadata().getName()).isEqualTo("Failed");
        assertThat(got.getReason()).isEqualTo("Shutdown");
        assertThat(got.getMessage()).isEqualTo("Node is shutting, evicting pods");
        assertThat(got.getHostIP()).as("the status after the kill").isEqualTo("10.1.1.1");
      }
      assertThat(workers.order.getLast()).startsWith("dns-");
    } finally {
      if (manager != null) {
        manager.stop();
      }
      statuses.stop();
      asNode.close();
      TestApiServer.deleteNode(admin, node);
    }
  }

  private static String phase(Pod p) {
    Pod got = admin.pods().inNamespace(ns.name).withName(p.getMetadata().getName()).get();
    return got == null || got.getStatus() == null ? null : got.getStatus().getPhase();
  }
}
