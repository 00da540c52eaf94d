package io.jkubelet.agent.bench;

import com.github.dockerjava.api.DockerClient;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.jkubelet.agent.e2e.TestDockerAccess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Cluster-mode pod startup, as the Kubernetes pod-startup SLO measures it: from the create request
 * until a watch on the API shows every container of the pod running (images are local, so no
 * pulls). Beside it, in the same run, Docker alone starts the same containers (a sandbox, then the
 * app containers joined to it). Run by deploy/scripts/bench-cluster.sh, which starts the API server
 * and jkubelet.
 *
 * <p>Arguments: KUBECONFIG NODE [SINGLE_RUNS] [PODS_AT_ONCE]
 */
public final class ClusterStartupBench {
  private static final int CONTAINERS = 2;

  public static void main(String[] args) throws Exception {
    Path kubeconfig = Path.of(args[0]);
    String node = args[1];
    int singles = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int many = args.length > 3 ? Integer.parseInt(args[3]) : 30;
    Config config =
        Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    String ns = "bench-" + UUID.randomUUID().toString().substring(0, 6);
    try (KubernetesClient k = new KubernetesClientBuilder().withConfig(config).build()) {
      k.namespaces()
          .resource(
              new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                  .withNewMetadata()
                  .withName(ns)
                  .endMetadata()
                  .build())
          .create();
      // The controller manager makes the default service account that pods need.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(60))
          .until(() -> k.serviceAccounts().inNamespace(ns).withName("default").get() != null);
      Bench b = new Bench(k, ns, node);
      try (var watch = k.pods().inNamespace(ns).watch(b)) {
        b.create("warmup");
        b.await("warmup");
        b.delete("warmup");

        List<Double> single = new ArrayList<>();
        for (int i = 0; i < singles; i++) {
          String name = "single-" + i;
          b.create(name);
          single.add(b.await(name));
          b.delete(name);
        }
        List<Double> dockerSingle = new ArrayList<>();
        for (int i = 0; i < singles; i++) {
          dockerSingle.add(DockerStart.pods(1, ns + "-s" + i));
        }

        ExecutorService pool = Executors.newFixedThreadPool(many);
        List<Future<Double>> all = new ArrayList<>();
        for (int i = 0; i < many; i++) {
          String name = "many-" + i;
          all.add(
              pool.submit(
                  () -> {
                    b.create(name);
                    return b.await(name);
                  }));
        }
        List<Double> manyTimes = new ArrayList<>();
        for (Future<Double> f : all) {
          manyTimes.add(f.get(10, TimeUnit.MINUTES));
        }
        pool.shutdown();
        double dockerMany = DockerStart.pods(many, ns + "-m");

        System.out.printf("%n%s, pods of %d busybox containers, images local:%n", node, CONTAINERS);
        System.out.printf(
            "  single pod, %d runs: jkubelet median %.2f s (min %.2f, max %.2f); Docker alone median %.2f s%n",
            singles,
            median(single),
            Collections.min(single),
            Collections.max(single),
            median(dockerSingle));
        System.out.printf(
            "  %d pods at once: jkubelet p50 %.2f s, p99 %.2f s; Docker alone %.2f s for the same %d containers; ratio p99/Docker %.2fx%n",
            many,
            percentile(manyTimes, 50),
            percentile(manyTimes, 99),
            dockerMany,
            many * CONTAINERS,
            percentile(manyTimes, 99) / dockerMany);
      } finally {
        k.pods().inNamespace(ns).delete();
      }
    }
  }

  static double median(List<Double> xs) {
    return percentile(xs, 50);
  }

  static double percentile(List<Double> xs, int p) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int idx = (int) Math.ceil(p / 100.0 * s.size()) - 1;
    return s.get(Math.max(0, Math.min(s.size() - 1, idx)));
  }

  /** Creates pods and learns from one watch when each has every container running. */
  static final class Bench implements Watcher<Pod> {
    private final KubernetesClient k;
    private final String ns;
    private final String node;
    private final Map<String, Long> created = new ConcurrentHashMap<>();
    private final Map<String, Double> running = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> done = new ConcurrentHashMap<>();

    Bench(KubernetesClient k, String ns, String node) {
      this.k = k;
      this.ns = ns;
      this.node = node;
    }

    void create(String name) {
      PodBuilder pb =
          new PodBuilder()
              .withNewMetadata()
              .withName(name)
              .endMetadata()
              .withNewSpec()
              .withNodeName(node)
              .withTerminationGracePeriodSeconds(1L)
              // No token: Docker alone, the other side of the comparison, mounts none.
              .withAutomountServiceAccountToken(false)
              .endSpec();
      for (int c = 0; c < CONTAINERS; c++) {
        pb.editSpec()
            .addNewContainer()
            .withName("c" + c)
            .withImage("jkubelet/busybox:1.35")
            .withCommand("sleep", "3600")
            .endContainer()
            .endSpec();
      }
      done.put(name, new CountDownLatch(1));
      created.put(name, System.nanoTime());
      k.pods().inNamespace(ns).resource(pb.build()).create();
    }

    double await(String name) throws InterruptedException {
      if (!done.get(name).await(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException(name + " did not start in 5 minutes");
      }
      return running.get(name);
    }

    void delete(String name) {
      k.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
    }

    @Override
    public void eventReceived(Action action, Pod pod) {
      String name = pod.getMetadata().getName();
      Long t0 = created.get(name);
      if (t0 == null
          || running.containsKey(name)
          || pod.getStatus() == null
          || pod.getStatus().getContainerStatuses() == null) {
        return;
      }
      var cs = pod.getStatus().getContainerStatuses();
      if (cs.size() == CONTAINERS
          && cs.stream().allMatch(s -> s.getState() != null && s.getState().getRunning() != null)) {
        running.put(name, (System.nanoTime() - t0) / 1e9);
        done.get(name).countDown();
      }
    }

    @Override
    public void onClose(WatcherException cause) {}
  }

  /** Docker alone: each pod a pause sandbox, then its containers joined to it; pods in parallel. */
  static final class DockerStart {
    static double pods(int count, String label) throws Exception {
      DockerClient d = TestDockerAccess.client();
      ExecutorService pool = Executors.newFixedThreadPool(count);
      long t0 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        fs.add(
            pool.submit(
                () -> {
                  String sb =
                      d.createContainerCmd("jkubelet/pause:3.2")
                          .withLabels(Map.of("io.jkubelet.bench", label))
                          .withHostConfig(
                              com.github.dockerjava.api.model.HostConfig.newHostConfig()
                                  .withIpcMode("shareable"))
                          .exec()
                          .getId();
                  d.startContainerCmd(sb).exec();
                  for (int c = 0; c < CONTAINERS; c++) {
                    String id =
                        d.createContainerCmd("jkubelet/busybox:1.35")
                            .withCmd("sleep", "3600")
                            .withLabels(Map.of("io.jkubelet.bench", label))
                            .withHostConfig(
                                com.github.dockerjava.api.model.HostConfig.newHostConfig()
                                    .withNetworkMode("container:" + sb)
                                    .withIpcMode("container:" + sb))
                            .exec()
                            .getId();
                    d.startContainerCmd(id).exec();
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      pool.shutdown();
      for (var c :
          d.listContainersCmd()
              .withShowAll(true)
              .withLabelFilter(Map.of("io.jkubelet.bench", label))
              .exec()) {
        d.removeContainerCmd(c.getId()).withForce(true).exec();
      }
      return seconds;
    }
  }
}
