package io.jkubelet.agent.bench;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * The kubelet API on a real node in cluster mode, as an operator meets it: kubectl, as the admin,
 * through the API server, which reaches jkubelet with its client certificate (issue 11). Each
 * figure is printed beside the engine's own (docker CLI) where there is one:
 *
 * <ul>
 *   <li>{@code kubectl logs} of a LOG_MB MB log (lines of 100 bytes, written by a container that
 *       has exited): MB/s, beside {@code docker logs} of the same container, and curl as the admin
 *       straight to jkubelet's port and to the API server's {@code pods/log}, with the load
 *       average;
 *   <li>{@code kubectl logs -f}: per line, from the time the container stamped on it until it
 *       arrives on the stream, beside {@code docker logs -f} of the same lines read at the same
 *       time; the container reads the clock with busybox's {@code adjtimex} (the host's clock: one
 *       kernel), so the figure needs no exec and no guess of when a line was written;
 *   <li>{@code kubectl exec pod -- true} beside {@code docker exec <id> true}, runs interleaved;
 *   <li>{@code /metrics} with METRICS_PODS pods on the node (a third of them with an HTTP readiness
 *       probe): through the API server's node proxy, and directly to jkubelet's port with the
 *       admin's client certificate, each from one warm HTTP client; and {@code kubectl get --raw}
 *       for the whole command.
 * </ul>
 *
 * Run by deploy/scripts/bench-kubelet-api.sh, which starts the API server and jkubelet.
 *
 * <p>Arguments: KUBECONFIG NODE KUBECTL KUBELET_PORT [RUNS] [METRICS_PODS] [LOG_MB] [SECTIONS]
 * (SECTIONS: a comma-separated subset of logs,follow,exec,metrics; default all)
 */
public final class KubeletApiBench {
  private static final String IMAGE = "jkubelet/busybox:1.35";

  private final KubernetesClient k;
  private final Config config;
  private final String ns;
  private final String node;
  private final String kubectl;
  private final Path kubeconfig;

  private KubeletApiBench(
      KubernetesClient k, Config config, String ns, String node, String kubectl, Path kubeconfig) {
    this.k = k;
    this.config = config;
    this.ns = ns;
    this.node = node;
    this.kubectl = kubectl;
    this.kubeconfig = kubeconfig;
  }

  public static void main(String[] args) throws Exception {
    Path kubeconfig = Path.of(args[0]);
    String node = args[1];
    String kubectl = args[2];
    int port = Integer.parseInt(args[3]);
    int runs = args.length > 4 ? Integer.parseInt(args[4]) : 20;
    int metricsPods = args.length > 5 ? Integer.parseInt(args[5]) : 110;
    int logMb = args.length > 6 ? Integer.parseInt(args[6]) : 100;
    List<String> sections =
        List.of((args.length > 7 ? args[7] : "logs,follow,exec,metrics").split(","));
    Config config =
        Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    String ns = "api-" + UUID.randomUUID().toString().substring(0, 6);
    try (KubernetesClient k = new KubernetesClientBuilder().withConfig(config).build()) {
      k.namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      try {
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> k.serviceAccounts().inNamespace(ns).withName("default").get() != null);
        var b = new KubeletApiBench(k, config, ns, node, kubectl, kubeconfig);
        System.out.printf(
            "%nkubelet API of %s through the API server, kubectl as the admin:%n", node);
        if (sections.contains("logs")) {
          b.logs(logMb, port);
        }
        if (sections.contains("follow")) {
          b.follow(runs * 5);
        }
        if (sections.contains("exec")) {
          b.exec(runs);
        }
        if (sections.contains("metrics")) {
          b.metrics(metricsPods, port, runs * 3);
        }
      } finally {
        k.namespaces().withName(ns).delete();
      }
    }
  }

  // ---- kubectl logs ----

  private void logs(int mb, int port) throws Exception {
    long bytes = mb * 1_000_000L;
    // 99 characters and a newline a line.
    String line = "0123456789".repeat(10).substring(0, 99);
    Pod pod = pod("biglog", "sh", "-c", "yes " + line + " | head -c " + bytes).build();
    pod.getSpec().setRestartPolicy("Never");
    k.pods().inNamespace(ns).resource(pod).create();
    long t0 = System.nanoTime();
    Awaitility.await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> "Succeeded".equals(phase("biglog")));
    System.out.printf(
        "  a container wrote %d MB of log lines in %.1f s and exited%n",
        mb, (System.nanoTime() - t0) / 1e9);
    String id = containerId("biglog");
    // curl as the admin (its client certificate): straight to jkubelet's port, and the API
    // server's pods/log without kubectl, to tell jkubelet's part from the proxy's and kubectl's.
    Path dir = Files.createTempDirectory("bench-logs");
    Path cert = pem(dir, "admin.crt", config.getClientCertData(), config.getClientCertFile());
    Path key = pem(dir, "admin.key", config.getClientKeyData(), config.getClientKeyFile());
    List<String> direct =
        curl(cert, key, "https://127.0.0.1:" + port + "/containerLogs/" + ns + "/biglog/c");
    List<String> viaApi =
        curl(
            cert,
            key,
            config.getMasterUrl().replaceAll("/$", "")
                + "/api/v1/namespaces/"
                + ns
                + "/pods/biglog/log");
    timedBytes(bytes, direct); // warm-up: a long-running agent's code is compiled
    List<Double> kube = new ArrayList<>();
    List<Double> docker = new ArrayList<>();
    List<Double> port1 = new ArrayList<>();
    List<Double> api = new ArrayList<>();
    List<Double> load = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      load.add(loadAverage());
      kube.add(timedBytes(bytes, kubectl("logs", "biglog")));
      docker.add(timedBytes(bytes, List.of("docker", "logs", id)));
      port1.add(timedBytes(bytes, direct));
      api.add(timedBytes(bytes, viaApi));
    }
    load.add(loadAverage());
    System.out.printf(
        "  logs of %d MB, mean of 2 (load average %s): kubectl logs %.1f MB/s (goal >= 100 MB/s);"
            + " docker logs %.1f MB/s; curl straight to jkubelet's port %.1f MB/s; curl through"
            + " the API server (pods/log) %.1f MB/s%n",
        mb,
        load.stream().map(l -> String.format("%.1f", l)).toList(),
        mb / mean(kube),
        mb / mean(docker),
        mb / mean(port1),
        mb / mean(api));
    k.pods().inNamespace(ns).withName("biglog").withGracePeriod(0).delete();
    Files.deleteIfExists(cert);
    Files.deleteIfExists(key);
    Files.deleteIfExists(dir);
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
  }

  /** The system's load average over the last minute. */
  private static double loadAverage() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static List<String> curl(Path cert, Path key, String url) {
    return List.of(
        "curl", "-sSfk", "--cert", cert.toString(), "--key", key.toString(), "-o", "-", url);
  }

  /** The kubeconfig's PEM data (base64) as a file, or its file. */
  private static Path pem(Path dir, String name, String data, String file) throws IOException {
    if (data == null) {
      return Path.of(file);
    }
    Path p = dir.resolve(name);
    Files.write(p, java.util.Base64.getDecoder().decode(data.trim()));
    return p;
  }

  /** Runs the command; its time in seconds; fails unless it wrote exactly {@code want} bytes. */
  private static double timedBytes(long want, List<String> cmd) throws Exception {
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    long n = 0;
    try (InputStream in = p.getInputStream()) {
      byte[] buf = new byte[1 << 16];
      for (int r; (r = in.read(buf)) >= 0; ) {
        n += r;
      }
    }
    int code = p.waitFor();
    double s = (System.nanoTime() - t0) / 1e9;
    if (code != 0 || n != want) {
      throw new IllegalStateException(
          cmd + " exited " + code + " after " + n + " of " + want + " bytes");
    }
    return s;
  }

  // ---- kubectl logs -f ----

  private void follow(int lines) throws Exception {
    // Each line is the time of day in microseconds, read from the kernel just before the write.
    String stamp =
        "while :; do adjtimex | awk '/tv_sec/ {s = $2} /tv_usec/ {printf \"%d%06d\\n\", s, $2}';"
            + " sleep 0.1; done";
    k.pods().inNamespace(ns).resource(pod("ticker", "sh", "-c", stamp).build()).create();
    awaitRunning("ticker");
    String id = containerId("ticker");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<List<Double>> kube =
          pool.submit(() -> latencies(kubectl("logs", "-f", "--tail=1", "ticker"), lines));
      Future<List<Double>> docker =
          pool.submit(() -> latencies(List.of("docker", "logs", "-f", "--tail", "1", id), lines));
      List<Double> kl = kube.get(10, TimeUnit.MINUTES);
      List<Double> dl = docker.get(10, TimeUnit.MINUTES);
      System.out.printf(
          "  kubectl logs -f, %d lines ~100 ms apart, from the container's stamp to the line on the"
              + " stream: p50 %.1f ms, p99 %.1f ms; docker logs -f of the same lines: p50 %.1f ms,"
              + " p99 %.1f ms; added: p50 %.1f ms, p99 %.1f ms (goal < 50 ms)%n",
          kl.size(),
          ClusterStartupBench.percentile(kl, 50),
          ClusterStartupBench.percentile(kl, 99),
          ClusterStartupBench.percentile(dl, 50),
          ClusterStartupBench.percentile(dl, 99),
          ClusterStartupBench.percentile(kl, 50) - ClusterStartupBench.percentile(dl, 50),
          ClusterStartupBench.percentile(kl, 99) - ClusterStartupBench.percentile(dl, 99));
    } finally {
      pool.shutdown();
      k.pods().inNamespace(ns).withName("ticker").withGracePeriod(0).delete();
    }
  }

  /** Follows the command's output; each line's delay in ms, after the first (the tail). */
  private static List<Double> latencies(List<String> cmd, int lines) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<Double> out = new ArrayList<>();
    try (var r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      r.readLine();
      for (String l; out.size() < lines && (l = r.readLine()) != null; ) {
        Instant now = Instant.now();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
        out.add((micros - Long.parseLong(l.trim())) / 1000.0);
      }
    } finally {
      p.destroy();
    }
    if (out.size() < lines) {
      throw new IllegalStateException(cmd + " ended after " + out.size() + " lines");
    }
    return out;
  }

  // ---- kubectl exec ----

  private void exec(int runs) throws Exception {
    k.pods().inNamespace(ns).resource(pod("execer", "sleep", "3600").build()).create();
    awaitRunning("execer");
    String id = containerId("execer");
    List<String> kube = kubectl("exec", "execer", "--", "true");
    List<String> docker = List.of("docker", "exec", id, "true");
    // kubectl's own floor: its start, the TLS handshake and one request to the API server.
    List<String> get = kubectl("get", "pod", "execer", "-o", "name");
    for (int i = 0; i < 2; i++) {
      timed(kube);
      timed(docker);
      timed(get);
    }
    List<Double> kt = new ArrayList<>();
    List<Double> dt = new ArrayList<>();
    List<Double> gt = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      kt.add(timed(kube) * 1000);
      dt.add(timed(docker) * 1000);
      gt.add(timed(get) * 1000);
    }
    double km = ClusterStartupBench.median(kt);
    double dm = ClusterStartupBench.median(dt);
    double gm = ClusterStartupBench.median(gt);
    System.out.printf(
        "  kubectl exec pod -- true, %d runs: median %.0f ms (p90 %.0f); docker exec <id> true:"
            + " median %.0f ms (p90 %.0f); ratio of medians %.2fx (goal <= 1.2x)%n",
        runs,
        km,
        ClusterStartupBench.percentile(kt, 90),
        dm,
        ClusterStartupBench.percentile(dt, 90),
        km / dm);
    System.out.printf(
        "    kubectl's own floor, kubectl get pod (its start, TLS, one API request): median %.0f ms;"
            + " kubectl exec beyond it %.0f ms, %.2fx docker exec%n",
        gm, km - gm, (km - gm) / dm);
    k.pods().inNamespace(ns).withName("execer").withGracePeriod(0).delete();
  }

  /** Runs the command to its end; seconds. */
  private static double timed(List<String> cmd) throws Exception {
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    int code = p.waitFor();
    double s = (System.nanoTime() - t0) / 1e9;
    if (code != 0) {
      throw new IllegalStateException(
          cmd + " exited " + code + ": " + new String(out, StandardCharsets.UTF_8));
    }
    return s;
  }

  // ---- /metrics ----

  private void metrics(int pods, int port, int runs) throws Exception {
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < pods; i++) {
        PodBuilder pb =
            i % 3 == 0
                ? pod("m-" + i, "httpd", "-f", "-p", "8080", "-h", "/")
                : pod("m-" + i, "sleep", "3600");
        if (i % 3 == 0) {
          pb.editSpec()
              .editFirstContainer()
              .withNewReadinessProbe()
              .withNewHttpGet()
              .withPath("/")
              .withNewPort(8080)
              .endHttpGet()
              .withPeriodSeconds(10)
              .endReadinessProbe()
              .endContainer()
              .endSpec();
        }
        Pod pod = pb.build();
        fs.add(pool.submit(() -> k.pods().inNamespace(ns).resource(pod).create()));
      }
      for (Future<?> f : fs) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdown();
    }
    Awaitility.await()
        .atMost(Duration.ofMinutes(20))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () ->
                k.pods().inNamespace(ns).list().getItems().stream()
                        .filter(p -> p.getStatus() != null)
                        .filter(p -> "Running".equals(p.getStatus().getPhase()))
                        .count()
                    >= pods);
    System.out.printf(
        "  %d pods running after %.0f s (%d with an HTTP readiness probe)%n",
        pods, (System.nanoTime() - t0) / 1e9, (pods + 2) / 3);
    Config direct =
        new ConfigBuilder(config)
            .withMasterUrl("https://127.0.0.1:" + port + "/")
            .withTrustCerts(true)
            .withDisableHostnameVerification(true)
            .build();
    try (KubernetesClient kubelet = new KubernetesClientBuilder().withConfig(direct).build()) {
      String proxyUrl =
          config.getMasterUrl().replaceAll("/$", "") + "/api/v1/nodes/" + node + "/proxy/metrics";
      String directUrl = "https://127.0.0.1:" + port + "/metrics";
      for (int i = 0; i < 5; i++) {
        get(k.getHttpClient(), proxyUrl);
        get(kubelet.getHttpClient(), directUrl);
      }
      List<Double> viaApi = new ArrayList<>();
      List<Double> viaPort = new ArrayList<>();
      String body = "";
      for (int i = 0; i < runs; i++) {
        long a = System.nanoTime();
        body = get(k.getHttpClient(), proxyUrl);
        viaApi.add((System.nanoTime() - a) / 1e6);
        long b = System.nanoTime();
        get(kubelet.getHttpClient(), directUrl);
        viaPort.add((System.nanoTime() - b) / 1e6);
      }
      long series = body.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
      List<Double> cli = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        cli.add(timed(kubectl("get", "--raw", "/api/v1/nodes/" + node + "/proxy/metrics")) * 1000);
      }
      System.out.printf(
          "  GET /metrics, %d series (%d KB), %d runs: through the API server's node proxy median"
              + " %.1f ms, p99 %.1f ms; directly to jkubelet's port (admin client certificate)"
              + " median %.1f ms, p99 %.1f ms (goal < 20 ms); kubectl get --raw, the whole"
              + " command, median %.0f ms%n",
          series,
          body.length() / 1024,
          runs,
          ClusterStartupBench.median(viaApi),
          ClusterStartupBench.percentile(viaApi, 99),
          ClusterStartupBench.median(viaPort),
          ClusterStartupBench.percentile(viaPort, 99),
          ClusterStartupBench.median(cli));
    }
  }

  private static String get(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.sendAsync(http.newHttpRequestBuilder().uri(url).build(), String.class)
            .get(1, TimeUnit.MINUTES);
    if (r.code() != 200) {
      throw new IllegalStateException("GET " + url + ": " + r.code() + " " + r.body());
    }
    return r.body();
  }

  // ---- helpers ----

  private List<String> kubectl(String... args) {
    return Stream.concat(
            Stream.of(kubectl, "--kubeconfig", kubeconfig.toString(), "-n", ns), Stream.of(args))
        .toList();
  }

  /** A pod of one container, bound to the node, without a token volume (not what is measured). */
  private PodBuilder pod(String name, String... command) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withTerminationGracePeriodSeconds(1L)
        .withAutomountServiceAccountToken(false)
        .addToContainers(
            new ContainerBuilder().withName("c").withImage(IMAGE).withCommand(command).build())
        .endSpec();
  }

  private String phase(String pod) {
    Pod p = k.pods().inNamespace(ns).withName(pod).get();
    return p == null || p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  private void awaitRunning(String pod) {
    Awaitility.await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "Running".equals(phase(pod)));
  }

  /** The docker id of the pod's container, from its status. */
  private String containerId(String pod) {
    String id =
        k.pods()
            .inNamespace(ns)
            .withName(pod)
            .get()
            .getStatus()
            .getContainerStatuses()
            .get(0)
            .getContainerID();
    return id.substring(id.indexOf("://") + 3);
  }
}
