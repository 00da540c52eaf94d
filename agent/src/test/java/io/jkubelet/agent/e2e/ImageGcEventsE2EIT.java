package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Image GC's Node events through the real API server, on a Docker engine of the test's own
 * (deploy/scripts/bench-engine.sh: its images are the two the tests use, loaded from the machine's
 * engine), since a GC forced to run deletes every unused image of its engine. A high threshold of 1
 * % forces every run over it, wanting to free far more than the engine holds; a container that is
 * not jkubelet's keeps the busybox image in use, the sandbox image is never deleted, so each run
 * frees nothing. Upstream reports {@code FreeDiskSpaceFailed} at each run, and {@code
 * ImageGCFailed} from the second (kubernetes#71869); jkubelet once.
 */
@Timeout(240)
class ImageGcEventsE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern RUNS =
      Pattern.compile("(?m)^jkubelet_image_gc_runs_over_threshold_total ([0-9.eE+]+)$");

  private final String node = "igc-" + UUID.randomUUID().toString().substring(0, 8);
  private final String bridge = "jkgc" + UUID.randomUUID().toString().substring(0, 6);
  private final String net = "10.251." + ThreadLocalRandom.current().nextInt(10, 250);
  private Path tmp;
  private Path engineDir;
  private String endpoint;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-igc");
    engineDir = tmp.resolve("engine");
    List<String> out = engineScript(engineDir.toString());
    endpoint = out.get(out.size() - 1).strip();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (jkubelet != null) {
      jkubelet.close();
    }
    Kubectl.run("delete", "node", node, "--wait=false");
    Kubectl.run(
        "-n",
        "default",
        "delete",
        "events",
        "--field-selector",
        "involvedObject.kind=Node,involvedObject.name=" + node);
    engineScript("--down", engineDir.toString());
    TestMounts.unmountUnder(tmp);
  }

  /** deploy/scripts/bench-engine.sh with the test's own bridge; its output lines. */
  private List<String> engineScript(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Kubectl.script("bench-engine.sh").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("BENCH_ENGINE_BRIDGE", bridge);
    pb.environment().put("BENCH_ENGINE_NET", net);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("bench-engine.sh " + String.join(" ", args)).isZero();
    return out.lines().toList();
  }

  /** The docker CLI against the test's engine. */
  private String docker(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("docker", "-H", endpoint));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + out).isZero();
    return out;
  }

  /** The Node's events of {@code reason}, as an operator lists them. */
  private List<JsonNode> nodeEvents(String reason) throws Exception {
    JsonNode list =
        JSON.readTree(
            Kubectl.run(
                    "-n",
                    "default",
                    "get",
                    "events",
                    "--field-selector",
                    "involvedObject.kind=Node,involvedObject.name=" + node + ",reason=" + reason,
                    "-o",
                    "json")
                .ok()
                .out());
    List<JsonNode> out = new ArrayList<>();
    list.path("items").forEach(out::add);
    return out;
  }

  /** Each event counted as often as the API server says it happened. */
  private static int occurrences(List<JsonNode> events) {
    return events.stream().mapToInt(e -> Math.max(1, e.path("count").asInt())).sum();
  }

  /** The periodic runs that found the image file system over the high threshold, from /metrics. */
  private long runsOverThreshold() throws Exception {
    Matcher m = RUNS.matcher(jkubelet.get("/metrics").body());
    assertThat(m.find()).as("jkubelet_image_gc_runs_over_threshold_total on /metrics").isTrue();
    return (long) Double.parseDouble(m.group(1));
  }

  @Test
  void aGcThatFreesNothingIsReportedOnceOnTheNodeAndAgainWhenItsImagesChange() throws Exception {
    // Not jkubelet's, never started: it keeps busybox in use all the same.
    docker("create", "--name", "holder", "jkubelet/busybox:1.35", "true");
    jkubelet =
        new JkubeletProcess(
                node,
                Files.createDirectories(tmp.resolve("manifests")),
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--kubeconfig",
                    Kubectl.nodeKubeconfig(node).toString(),
                    "--node-ip",
                    "127.0.0.1",
                    "--docker-endpoint",
                    endpoint,
                    "--image-gc-high-threshold=1",
                    "--image-gc-low-threshold=0",
                    "--image-gc-period=3s"))
            .start();
    Kubectl.awaitNodeReady(node);

    // Five runs over the threshold, each freeing nothing: one event, counted once.
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> runsOverThreshold() >= 5);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(nodeEvents("FreeDiskSpaceFailed")).isNotEmpty());
    List<JsonNode> failed = nodeEvents("FreeDiskSpaceFailed");
    assertThat(failed).hasSize(1);
    JsonNode first = failed.get(0);
    assertThat(first.path("count").asInt()).isEqualTo(1);
    assertThat(first.path("type").asText()).isEqualTo("Warning");
    assertThat(first.path("source").path("component").asText()).isEqualTo("kubelet");
    assertThat(first.path("message").asText())
        .matches(
            "failed to garbage collect required amount of images\\. Wanted to free \\d+ bytes,"
                + " but freed 0 bytes");
    assertThat(nodeEvents("ImageGCFailed")).isEmpty();
    assertThat(docker("images", "-q")).hasLineCount(2);

    // The images change: busybox is unused now. The next run deletes it, still short of what it
    // wants, and says so; the next freed-nothing run is reported once more, then no longer.
    docker("rm", "holder");
    long before = runsOverThreshold();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(nodeEvents("FreeDiskSpaceFailed"))
                    .anySatisfy(
                        e ->
                            assertThat(e.path("message").asText())
                                .matches(".*but freed [1-9]\\d* bytes")));
    assertThat(docker("images", "--format", "{{.Repository}}:{{.Tag}}").strip())
        .isEqualTo("jkubelet/pause:3.2");
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> runsOverThreshold() >= before + 5);
    assertThat(occurrences(nodeEvents("FreeDiskSpaceFailed")))
        .as("the first freed-0 run, the run that freed busybox, one freed-0 run after it")
        .isEqualTo(3);
    // Failures in a row (upstream's ImageGCFailed): the two reported runs after the first.
    assertThat(occurrences(nodeEvents("ImageGCFailed"))).isEqualTo(2);
    assertThat(jkubelet.get("/metrics").body())
        .containsPattern("(?m)^jkubelet_image_gc_deleted_images_total 1(\\.0)?$");
  }
}
