package io.jkubelet.agent.e2e;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.jkubelet.agent.util.ApiSerialization;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;

/**
 * The packaged {@code jkubelet} started as a process, as systemd starts it, for end-to-end tests.
 * Its log goes to a file that failing tests print.
 *
 * <p>A started process is watched until the test stops it ({@link #stop}, {@link #kill9}, {@link
 * #close}) or says it expects it to exit ({@link #awaitExit}): while it is, every Awaitility wait
 * in the JVM fails at once, with the exit code and the log's tail, if the process exits, rather
 * than waiting out its timeout for something a crashed agent will never do.
 */
final class JkubeletProcess implements AutoCloseable {
  /** The processes started and not yet stopped by their test; see {@link #failFastOnExit}. */
  private static final Set<JkubeletProcess> WATCHED = ConcurrentHashMap.newKeySet();

  private static final AtomicBoolean FAIL_FAST_SET = new AtomicBoolean();

  private final Path launcher;
  private final List<String> args;
  private final Path log;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;
  private final int apiPort;

  JkubeletProcess(String nodeName, Path manifests, Path rootDir, Path log) throws IOException {
    this(nodeName, manifests, rootDir, log, List.of());
  }

  /**
   * With extra flags, e.g. {@code --kubeconfig} for cluster mode. Without a {@code --cgroup...}
   * flag among them, pods get no cgroups of jkubelet's ({@code --cgroups-per-qos=false}); without
   * an {@code --image-gc...} flag, no image GC ({@code --image-gc-high-threshold=100}).
   */
  JkubeletProcess(String nodeName, Path manifests, Path rootDir, Path log, List<String> extra)
      throws IOException {
    String dist = System.getProperty("jkubelet.dist", "target/jkubelet");
    this.launcher = Path.of(dist, "bin", "jkubelet").toAbsolutePath();
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException(
          "no packaged launcher at " + launcher + "; run mvn package first");
    }
    this.port = freePort();
    this.apiPort = freePort();
    this.log = log;
    List<String> all =
        new ArrayList<>(
            List.of(
                "run",
                "--pod-manifest-path",
                manifests.toString(),
                "--hostname-override",
                nodeName,
                "--root-dir",
                rootDir.toString(),
                "--read-only-port",
                Integer.toString(port),
                "--address",
                "127.0.0.1",
                "--port",
                Integer.toString(apiPort),
                "--healthz-port",
                "0",
                "--pod-infra-container-image",
                "jkubelet/pause:3.2",
                // Upstream's default refuses a host with swap on, as a CI runner may be;
                // nothing these tests check depends on swap.
                "--fail-swap-on=false",
                "--v",
                "2"));
    if (!extra.contains("--pod-logs-dir")) {
      // Container log files stay with the test, out of the host's /var/log.
      all.addAll(
          List.of(
              "--pod-logs-dir",
              rootDir.resolve("log/pods").toString(),
              "--container-logs-dir",
              rootDir.resolve("log/containers").toString()));
    }
    if (extra.stream().noneMatch(a -> a.startsWith("--cgroup"))) {
      // Pods stay out of the host's /kubepods unless the test gives a cgroup root of its own
      // (CgroupsE2EIT): tests never leave cgroups behind on the machine that runs them.
      all.addAll(List.of("--cgroups-per-qos=false", "--enforce-node-allocatable="));
    }
    if (extra.stream().noneMatch(a -> a.startsWith("--image-gc"))) {
      // No image GC unless the test asks for it: the engine's images are every test's, and GC
      // deletes any unused one once the data root is 85 % full (this machine's is shared).
      all.add("--image-gc-high-threshold=100");
    }
    all.addAll(extra);
    this.args = List.copyOf(all);
  }

  /** The kubelet API's HTTPS port. */
  int apiPort() {
    return apiPort;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  JkubeletProcess start() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(launcher.toString());
    cmd.addAll(args);
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (FAIL_FAST_SET.compareAndSet(false, true)) {
      Awaitility.setDefaultFailFastCondition(
          "a jkubelet process exited", JkubeletProcess::failFastOnExit);
    }
    WATCHED.add(this);
    return this;
  }

  /**
   * Awaitility's default fail-fast condition: throws for a watched process that has exited, which
   * is then no longer watched (the next test's waits are not failed by it).
   */
  private static void failFastOnExit() {
    for (JkubeletProcess p : WATCHED) {
      if (!p.process.isAlive() && WATCHED.remove(p)) {
        throw new AssertionError(
            "jkubelet exited with "
                + p.process.exitValue()
                + " while the test waited; the end of its log:\n"
                + tail(p.log(), 40));
      }
    }
  }

  private static String tail(String text, int lines) {
    List<String> all = text.lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /**
   * Waits for a process the test expects to exit by itself (a refused configuration, say), and
   * returns its exit code; it is no longer watched.
   */
  int awaitExit(Duration atMost) throws InterruptedException {
    WATCHED.remove(this);
    if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("jkubelet did not exit in " + atMost);
    }
    return process.exitValue();
  }

  /**
   * Waits until {@code /healthz} answers 200, failing at once if the process exited. A loaded CI
   * machine starts a JVM slowly, hence the generous bound.
   */
  JkubeletProcess awaitHealthy() {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(
            () -> {
              if (!alive()) {
                throw new IllegalStateException("jkubelet exited with " + process.exitValue());
              }
              return get("/healthz").statusCode() == 200;
            });
    return this;
  }

  /** The read-only port. */
  int port() {
    return port;
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /**
   * Writes every thread of the process, virtual ones included, to {@code file} as text, with the
   * {@code jcmd} of the JDK that runs it.
   *
   * @throws IOException when jcmd cannot be run or fails
   */
  void dumpThreads(Path file) throws IOException, InterruptedException {
    Path java =
        Path.of(process.info().command().orElseThrow(() -> new IOException("no command line")));
    Path jcmd = java.resolveSibling("jcmd");
    Process dump =
        new ProcessBuilder(
                jcmd.toString(),
                Long.toString(process.pid()),
                "Thread.dump_to_file",
                "-format=text",
                file.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(dump.getInputStream().readAllBytes());
    if (!dump.waitFor(30, TimeUnit.SECONDS) || dump.exitValue() != 0) {
      throw new IOException("jcmd failed: " + out.strip());
    }
  }

  /** SIGTERM, as systemd stops it; waits for the exit. */
  int stop() throws InterruptedException {
    WATCHED.remove(this);
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    return process.exitValue();
  }

  /** SIGKILL: no chance to clean up. */
  void kill9() throws InterruptedException {
    WATCHED.remove(this);
    process.destroyForcibly().waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    WATCHED.remove(this);
    if (alive()) {
      stop();
    }
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The pods on the read-only port, or an empty list while it is not up yet. */
  List<Pod> pods() {
    try {
      HttpResponse<String> r = get("/pods");
      if (r.statusCode() != 200) {
        System.err.println("GET /pods: " + r.statusCode() + " " + r.body());
        return List.of();
      }
      return ApiSerialization.SHARED.unmarshal(r.body(), PodList.class).getItems();
    } catch (IOException e) {
      System.err.println("GET /pods: " + e);
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  Optional<Pod> pod(String name) {
    return pods().stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst();
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
