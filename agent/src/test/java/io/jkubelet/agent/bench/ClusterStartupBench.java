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
 * app containers joined to it). A pod with a service-account token volume, a configMap volume and
 * an env var from a secret is timed too, its runs interleaved with the plain pod's, so that the
 * cost of those three is their difference (issue 10: within 0.2 s). Run by
 * deploy/scripts/bench-cluster.sh, which starts the API server and jkubelet.
 *
 * <p>Arguments: KUBECONFIG NODE [SINGLE_RUNS] [PODS_AT_ONCE]
 */
public final class ClusterStartupBench {
  private static final int CONTAINERS = 2;
  private static final String CONFIG_MAP = "bench-config";
  private static final String SECRET = "bench-secret";

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
      k.configMaps()
          .inNamespace(ns)
          .resource(
              new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                  .withNewMetadata()
                  .withName(CONFIG_MAP)
                  .endMetadata()
                  .addToData("app.properties", "greeting=hello\n")
                  .build())
          .create();
      k.secrets()
          .inNamespace(ns)
          .resource(
              new io.fabric8.kubernetes.api.model.SecretBuilder()
                  .withNewMetadata()
                  .withName(SECRET)
                  .endMetadata()
                  .addToStringData("password", "s3cret")
                  .build())
          .create();
      Bench b = new Bench(k, ns, node);
      try (var watch = k.pods().inNamespace(ns).watch(b)) {
        for (boolean full : new boolean[] {false, true}) {
          b.once("warmup-" + full, full);
        }

        List<Double> single = new ArrayList<>();
        List<Double> full = new ArrayList<>();
        for (int i = 0; i < singles; i++) {
          single.add(b.once("single-" + i, false));
          full.add(b.once("full-" + i, true));
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
                    b.create(name, false);
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
        double plain50 = median(single);
        double plain90 = percentile(single, 90);
        double full50 = median(full);
        double full90 = percentile(full, 90);
        System.out.printf(
            "  single pod with a token volume, a configMap volume and a secret env var, %d runs"
                + " interleaved with the plain pod's:%n",
            singles);
        System.out.printf(
            "    plain pod (automountServiceAccountToken: false): median %.3f s, p90 %.3f s%n",
            plain50, plain90);
        System.out.printf(
            "    token + configMap + secret env:                   median %.3f s, p90 %.3f s%n",
            full50, full90);
        System.out.printf(
            "    difference: median %+.3f s, p90 %+.3f s (goal: within 0.2 s)%n",
            full50 - plain50, full90 - plain90);
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

    /** Creates the pod, waits until it runs, deletes it and waits until it is gone. */
    double once(String name, boolean full) throws InterruptedException {
      create(name, full);
      double t = await(name);
      delete(name);
      awaitGone(name);
      return t;
    }

    /**
     * A plain pod, or with {@code full} one that also mounts the service account's token (the
     * admission plugin adds the projected volume), a configMap volume, and takes an env var from a
     * secret.
     */
    void create(String name, boolean full) {
      PodBuilder pb =
          new PodBuilder()
              .withNewMetadata()
              .withName(name)
              .endMetadata()
              .withNewSpec()
              .withNodeName(node)
              .withTerminationGracePeriodSeconds(1L)
              .endSpec();
      if (full) {
        pb.editSpec()
            .addNewVolume()
            .withName("config")
            .withNewConfigMap()
            .withName(CONFIG_MAP)
            .endConfigMap()
            .endVolume()
            .endSpec();
      } else {
        // No token volume: this field is what the plain/full comparison is about (the full pod
        // keeps the token), and Docker alone, the other comparison, mounts none either.
        pb.editSpec().withAutomountServiceAccountToken(false).endSpec();
      }
      for (int c = 0; c < CONTAINERS; c++) {
        var container =
            new io.fabric8.kubernetes.api.model.ContainerBuilder()
                .withName("c" + c)
                .withImage("jkubelet/busybox:1.35")
                .withCommand("sleep", "3600");
        if (full) {
          container
              .addNewVolumeMount()
              .withName("config")
              .withMountPath("/etc/config")
              .endVolumeMount()
              .addNewEnv()
              .withName("PASSWORD")
              .withNewValueFrom()
              .withNewSecretKeyRef()
              .withName(SECRET)
              .withKey("password")
              .endSecretKeyRef()
              .endValueFrom()
              .endEnv();
        }
        pb.editSpec().addToContainers(container.build()).endSpec();
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

    /** Waits until the pod's containers stopped, so that the next run starts on an idle node. */
    void awaitGone(String name) {
      DockerClient d = TestDockerAccess.client();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofMinutes(2))
          .pollInterval(java.time.Duration.ofMillis(50))
          .until(
              () ->
                  d.listContainersCmd()
                      .withLabelFilter(
                          Map.of(
                              io.jkubelet.agent.runtime.Labels.NODE, node,
                              io.jkubelet.agent.runtime.Labels.POD_NAME, name))
                      .exec()
                      .isEmpty());
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
