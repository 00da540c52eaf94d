package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.Labels;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Container log files with the packaged jkubelet and Docker: upstream's paths and CRI format
 * (stdout and stderr apart, a long line in parts), the links, rotation with a small {@code
 * containerLogMaxSize}, no line lost or doubled across a jkubelet restart, cleanup with the pod;
 * {@code /logs/} with its refusals; and a thousand {@code /containerLogs} requests, some followed
 * streams dropped by their client, that leave the agent's threads and file descriptors as they
 * were.
 */
@Timeout(300)
class LogFilesE2EIT {
  private static final Pattern TICK = Pattern.compile(" stdout F tick (\\d+) ");
  private final String node = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private Path manifests;
  private Path podLogs;
  private Path links;
  private Path nodeLogs;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-logs");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    podLogs = tmp.resolve("var/log/pods");
    links = tmp.resolve("var/log/containers");
    nodeLogs = Files.createDirectories(tmp.resolve("var/log"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    TestDocker.removeAll(docker, Labels.NODE, node);
  }

  /** Starts jkubelet, known to the teardown and to the failure's log before it is up. */
  private void start() throws Exception {
    jkubelet =
        new JkubeletProcess(
                node,
                manifests,
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--pod-logs-dir",
                    podLogs.toString(),
                    "--container-logs-dir",
                    links.toString(),
                    "--node-log-dir",
                    nodeLogs.toString(),
                    "--enable-system-log-handler",
                    "--container-log-max-size",
                    "20Ki",
                    "--container-log-max-files",
                    "3"))
            .start();
    jkubelet.awaitHealthy();
  }

  private void pod(String name, String script) throws IOException {
    Files.writeString(
        manifests.resolve(name + ".yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          terminationGracePeriodSeconds: 1
          containers:
          - name: app
            image: jkubelet/busybox:1.35
            command: [sh, -c, '%s']
        """
            .formatted(name, script));
  }

  private String containerId(String pod) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                TestDocker.withLabels(
                        docker,
                        Map.of(
                            Labels.NODE,
                            node,
                            Labels.CONTAINER_NAME,
                            "app",
                            Labels.POD_NAME,
                            pod + "-" + node))
                    .stream()
                    .filter(c -> "running".equals(c.getState()))
                    .map(Container::getId)
                    .findFirst()
                    .orElse(null),
            id -> id != null);
  }

  private Path podDir(String pod) throws IOException {
    String prefix = "default_" + pod + "-" + node + "_";
    try (Stream<Path> dirs = Files.list(podLogs)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith(prefix))
          .findFirst()
          .orElseThrow();
    }
  }

  @Test
  void filesInCriFormatRotateResumeAfterARestartAndGoWithThePod() throws Exception {
    pod(
        "logger",
        "echo out-1; echo err-1 >&2; printf \"%20000s\" \"\" | tr \" \" x; echo;"
            + " pad=$(printf \"%200s\" \"\" | tr \" \" p); i=0;"
            + " while true; do i=$((i+1)); echo \"tick $i $pad\"; sleep 0.1; done");
    start();
    String id = containerId("logger");
    Path file =
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> podDir("logger").resolve("app/0.log"), Files::isRegularFile);
    assertThat(file.getParent().getParent().getFileName().toString())
        .matches("default_logger-" + node + "_[0-9a-f-]{32,36}");

    // The start of the output, before anything rotates it away (the long line fills a file).
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> allLines(file.getParent()).stream().anyMatch(l -> l.contains("tick 3 ")));
    // Up to the third tick: stderr's line comes through another pipe, so it may come late.
    List<String> first =
        allLines(file.getParent()).stream().takeWhile(l -> !l.contains("tick 3 ")).toList();
    String time = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z";
    assertThat(first)
        .as("stdout and stderr apart (Docker orders them only within a stream)")
        .anyMatch(l -> l.matches(time + " stdout F out-1"))
        .anyMatch(l -> l.matches(time + " stderr F err-1"));
    List<String> longLine = first.stream().filter(l -> l.endsWith("xxx")).toList();
    assertThat(longLine).as("a 20000-byte line in Docker's 16 KiB parts").hasSize(2);
    assertThat(longLine.get(0)).matches(time + " stdout P x{16384}");
    assertThat(longLine.get(1)).matches(time + " stdout F x{3616}");
    Path link = links.resolve("logger-" + node + "_default_app-" + id + ".log");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.readSymbolicLink(link)).isEqualTo(file);

    // Rotation: the live file, the newest rotated one plain, an older one gzipped; three at most.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(names(file.getParent()))
                    .anyMatch(n -> n.matches("0\\.log\\.\\d{8}-\\d{6}\\.gz"))
                    .anyMatch(n -> n.matches("0\\.log\\.\\d{8}-\\d{6}")));
    assertThat(names(file.getParent()).size()).isLessThanOrEqualTo(3);

    // A restart: the container writes on while no jkubelet runs.
    int before = lastTick(file.getParent());
    jkubelet.stop();
    await().atMost(Duration.ofSeconds(10)).until(() -> dockerTick(id) > before + 20);
    start();
    await().atMost(Duration.ofSeconds(30)).until(() -> lastTick(file.getParent()) > before + 40);
    List<Integer> ticks = ticks(file.getParent());
    assertThat(names(file.getParent()).size()).as("containerLogMaxFiles").isLessThanOrEqualTo(3);
    for (int i = 1; i < ticks.size(); i++) {
      assertThat(ticks.get(i))
          .as("tick after %d: none lost, none doubled", ticks.get(i - 1))
          .isEqualTo(ticks.get(i - 1) + 1);
    }
    assertThat(ticks).contains(before + 1, before + 20);
    try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build()) {
      // Once the restarted jkubelet's file source has read the manifest again (404 before).
      HttpResponse<String> r =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> get(http, "/containerLogs/default/logger-" + node + "/app?tailLines=1"),
                  response -> response.statusCode() != 404);
      assertThat(r.statusCode()).as("/containerLogs after a restart").isEqualTo(200);
      assertThat(r.body()).matches("tick \\d+ p{200}\n");
    }

    // The pod goes: its files and links go too.
    Path dir = podDir("logger");
    Files.delete(manifests.resolve("logger.yaml"));
    await().atMost(Duration.ofSeconds(60)).until(() -> !Files.exists(dir));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void systemLogsAndAThousandLogRequestsLeakNothing() throws Exception {
    Files.writeString(nodeLogs.resolve("syslog"), "booted\n");
    Files.writeString(tmp.resolve("secret"), "do not show\n");
    Files.createSymbolicLink(nodeLogs.resolve("escape"), tmp.resolve("secret"));
    pod("quiet", "for i in 1 2 3 4 5; do echo line $i; done; exec sleep 3600");
    start();
    containerId("quiet");
    String logs = "/containerLogs/default/quiet-" + node + "/app";
    try (HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build()) {
      HttpResponse<String> listing = get(http, "/logs/");
      assertThat(listing.statusCode()).isEqualTo(200);
      assertThat(listing.body())
          .contains("<a href=\"syslog\">syslog</a>", "<a href=\"pods/\">pods/</a>");
      assertThat(get(http, "/logs/syslog").body()).isEqualTo("booted\n");
      assertThat(get(http, "/logs/escape").statusCode()).isEqualTo(403);
      assertThat(raw("/logs/../secret")).startsWith("HTTP/1.1 404").doesNotContain("do not show");
      // The collector picks the container up within a second of the pod cache seeing it.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(http, "/logs/pods/").body().contains("default_quiet-" + node));

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(http, logs).body().equals("line 1\nline 2\nline 3\nline 4\nline 5\n"));
      for (int i = 0; i < 50; i++) {
        assertThat(get(http, logs + "?tailLines=2").body()).isEqualTo("line 4\nline 5\n");
        dropFollowed(logs);
      }
      long pid = jkubelet.pid();
      Usage base = usage(pid);
      long heap = liveHeapKib(pid);
      for (int i = 0; i < 1000; i++) {
        if (i % 10 == 0) {
          dropFollowed(logs);
        } else {
          assertThat(get(http, logs + "?tailLines=2").body()).isEqualTo("line 4\nline 5\n");
        }
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                Usage now = usage(pid);
                assertThat(now.threads())
                    .as("threads, from %s", base)
                    .isLessThanOrEqualTo(base.threads() + 3);
                assertThat(now.fds()).as("fds, from %s", base).isLessThanOrEqualTo(base.fds() + 5);
              });
      assertThat(liveHeapKib(pid))
          .as("the live heap after a full GC, in KiB, from %d", heap)
          .isLessThanOrEqualTo(heap + 16 * 1024);
    }
  }

  /** A followed stream that the client drops after its first bytes. */
  private void dropFollowed(String path) throws Exception {
    try (SSLSocket s =
        (SSLSocket) trustAll().getSocketFactory().createSocket("127.0.0.1", jkubelet.apiPort())) {
      s.getOutputStream()
          .write(
              ("GET " + path + "?follow=true HTTP/1.1\r\nHost: x\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      StringBuilder got = new StringBuilder();
      while (!got.toString().contains("line 5")) {
        int b = in.read();
        assertThat(b).as("the followed stream ended early: %s", got).isNotNegative();
        got.append((char) b);
      }
    }
  }

  private record Usage(int threads, int fds) {}

  private static Usage usage(long pid) throws IOException {
    int threads =
        Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
            .filter(l -> l.startsWith("Threads:"))
            .map(l -> Integer.parseInt(l.substring(8).trim()))
            .findFirst()
            .orElseThrow();
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return new Usage(threads, (int) fds.count());
    }
  }

  /**
   * The agent's heap in use after a full GC, through {@code jcmd}: the young and old generations of
   * the serial GC ({@code DefNew} and {@code Tenured}, or {@code def new generation} and {@code
   * tenured generation} in older JDKs).
   */
  private static long liveHeapKib(long pid) throws Exception {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    jcmdOutput(jcmd, pid, "GC.run");
    String info = jcmdOutput(jcmd, pid, "GC.heap_info");
    Matcher m = Pattern.compile("\\btotal \\d+K, used (\\d+)K").matcher(info);
    long used = 0;
    int generations = 0;
    while (m.find()) {
      used += Long.parseLong(m.group(1));
      generations++;
    }
    assertThat(generations).as("jcmd GC.heap_info: %s", info).isEqualTo(2);
    return used;
  }

  private static String jcmdOutput(String jcmd, long pid, String command) throws Exception {
    Process p =
        new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("jcmd %s: %s", command, out).isZero();
    return out;
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Every line of the container's files, oldest file first, the live one last. */
  private static List<String> allLines(Path dir) throws IOException {
    List<String> files = new ArrayList<>(names(dir));
    files.remove("0.log");
    files.add("0.log");
    List<String> lines = new ArrayList<>();
    for (String n : files) {
      Path p = dir.resolve(n);
      try (InputStream in =
          n.endsWith(".gz")
              ? new GZIPInputStream(Files.newInputStream(p))
              : Files.newInputStream(p)) {
        new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().forEach(lines::add);
      } catch (java.nio.file.NoSuchFileException e) {
        // rotated away meanwhile
      }
    }
    return lines;
  }

  /** Every tick in the container's files, in order. */
  private static List<Integer> ticks(Path dir) throws IOException {
    List<Integer> ticks = new ArrayList<>();
    for (String line : allLines(dir)) {
      Matcher m = TICK.matcher(line);
      if (m.find()) {
        ticks.add(Integer.parseInt(m.group(1)));
      }
    }
    return ticks;
  }

  private static int lastTick(Path dir) throws IOException {
    List<Integer> t = ticks(dir);
    return t.isEmpty() ? 0 : t.get(t.size() - 1);
  }

  private int dockerTick(String id) throws Exception {
    // The container's own count is in Docker's log: read its last line.
    var cb =
        docker
            .logContainerCmd(id)
            .withStdOut(true)
            .withTail(1)
            .exec(
                new com.github.dockerjava.api.async.ResultCallback.Adapter<
                    com.github.dockerjava.api.model.Frame>() {
                  final StringBuilder text = new StringBuilder();

                  @Override
                  public void onNext(com.github.dockerjava.api.model.Frame f) {
                    text.append(new String(f.getPayload(), StandardCharsets.UTF_8));
                  }

                  @Override
                  public String toString() {
                    return text.toString();
                  }
                });
    cb.awaitCompletion();
    Matcher m = Pattern.compile("tick (\\d+)").matcher(cb.toString());
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  private String raw(String path) throws Exception {
    try (SSLSocket s =
        (SSLSocket) trustAll().getSocketFactory().createSocket("127.0.0.1", jkubelet.apiPort())) {
      s.getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private HttpResponse<String> get(HttpClient http, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + jkubelet.apiPort() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static SSLContext trustAll() throws Exception {
    return io.jkubelet.agent.testing.TrustAll.context();
  }
}
