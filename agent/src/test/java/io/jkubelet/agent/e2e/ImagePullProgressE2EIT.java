package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.Labels;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Image pull progress end to end, on the real engine: a standalone jkubelet pulls an image of a 40
 * MB layer from the test registry ({@link TestRegistry}) through a {@link SlowProxy}. A slow link
 * (4 MB/s) shows the progress in the pod's {@code Pulling} event (on the read-only port's {@code
 * /events}) and in {@code /pods}' annotation while it runs; a link that stalls mid-layer is
 * cancelled by {@code --image-pull-progress-deadline} with upstream's words in the {@code Failed}
 * Warning, and the pull succeeds under the backoff once the link works again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(400)
class ImagePullProgressE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final long LAYER_BYTES = 40_000_000;

  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final String node = "pull-progress-" + id;
  private final DockerClient docker = TestDocker.client();
  private final List<String> localImages = new ArrayList<>();
  private TestRegistry registry;
  private SlowProxy proxy;
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;
  private String slow;
  private String stalled;

  @BeforeAll
  void start() throws Exception {
    registry =
        TestRegistry.start(docker, "puller", "pw-" + UUID.randomUUID().toString().substring(0, 12));
    // Two images with layers of their own: a layer the engine has does not download again.
    String big = bigImage("slow");
    String other = bigImage("stalled");
    int port = Integer.parseInt(registry.host().substring(registry.host().lastIndexOf(':') + 1));
    proxy = new SlowProxy(registry.ip(), new InetSocketAddress(registry.ip(), port));
    registry.trust(proxy.hostPort());
    // Pushed straight to the registry, pulled through the proxy.
    registry.push(big, registry.image("jkubelet-test/big-" + id, "slow"));
    registry.push(other, registry.image("jkubelet-test/big-" + id, "stalled"));
    untag(big); // the engine forgets their layers: only the registry has them now
    untag(other);
    slow = proxy.hostPort() + "/jkubelet-test/big-" + id + ":slow";
    stalled = proxy.hostPort() + "/jkubelet-test/big-" + id + ":stalled";
    localImages.addAll(List.of(slow, stalled));

    tmp = Files.createTempDirectory("jkubelet-pull-progress");
    Path root = Files.createDirectories(tmp.resolve("root"));
    Files.writeString(
        root.resolve("config.json"),
        "{\"auths\":{\""
            + proxy.hostPort()
            + "\":{\"auth\":\""
            + registry.authField(registry.user, registry.password)
            + "\"}}}");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    jkubelet =
        new JkubeletProcess(
                node,
                manifests,
                root,
                tmp.resolve("jkubelet.log"),
                List.of("--image-pull-progress-deadline=15s"))
            .start()
            .awaitHealthy();
  }

  /** A local image of busybox and a 40 MB layer of random bytes (which do not compress). */
  private String bigImage(String tag) throws Exception {
    String c =
        docker
            .createContainerCmd(BUSYBOX)
            .withCmd("sh", "-c", "head -c " + LAYER_BYTES + " /dev/urandom > /big")
            .withLabels(Map.of(TestRegistry.LABEL, TestRegistry.LABEL_VALUE))
            .exec()
            .getId();
    docker.startContainerCmd(c).exec();
    docker.waitContainerCmd(c).start().awaitStatusCode(120, TimeUnit.SECONDS);
    String name = "jkubelet-test/big-local-" + id;
    docker.commitCmd(c).withRepository(name).withTag(tag).exec();
    docker.removeContainerCmd(c).withForce(true).exec();
    localImages.add(name + ":" + tag);
    return name + ":" + tag;
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (jkubelet != null) {
        jkubelet.stop();
      }
    } finally {
      TestDocker.removeAll(docker, Labels.NODE, node);
      TestDocker.removeAll(docker, TestRegistry.LABEL, TestRegistry.LABEL_VALUE);
      localImages.forEach(this::untag);
      if (proxy != null) {
        proxy.close();
      }
      if (registry != null) {
        registry.close();
      }
      if (tmp != null) {
        TestMounts.unmountUnder(tmp);
      }
      docker.close();
    }
  }

  private void untag(String image) {
    try {
      docker.removeImageCmd(image).withForce(true).exec();
    } catch (RuntimeException e) {
      // not there
    }
  }

  private void staticPod(String name, String image) throws Exception {
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
            image: %s
            command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]
        """
            .formatted(name, image));
  }

  /** "type reason (xcount): message" of the pod's events on the read-only port. */
  private List<String> events(String pod) throws Exception {
    JsonNode items = JSON.readTree(jkubelet.get("/events?pod=" + pod + "-" + node).body());
    List<String> out = new ArrayList<>();
    for (JsonNode e : items.path("items")) {
      out.add(
          e.path("type").asText()
              + " "
              + e.path("reason").asText()
              + " (x"
              + e.path("count").asInt()
              + "): "
              + e.path("message").asText());
    }
    return out;
  }

  private Optional<ContainerStatus> status(String pod) {
    return jkubelet
        .pod(pod + "-" + node)
        .map(Pod::getStatus)
        .filter(s -> s.getContainerStatuses() != null && !s.getContainerStatuses().isEmpty())
        .map(s -> s.getContainerStatuses().get(0));
  }

  @Test
  void aSlowPullShowsItsProgressInThePullingEventAndInPods() throws Exception {
    proxy.bytesPerSecond = 3_000_000; // about 14 s for the layer
    staticPod("slow", slow);
    String progress =
        "Normal Pulling \\(x\\d+\\): Pulling image \""
            + slow.replace(".", "\\.")
            + "\": [0-9.]+[kM]?B of (at least )?[0-9.]+MB \\(\\d of \\d layers done\\).*";
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(events("slow")).anyMatch(e -> e.matches(progress)));
    Pod pod = jkubelet.pod("slow-" + node).orElseThrow();
    JsonNode pulls =
        JSON.readTree(pod.getMetadata().getAnnotations().get("jkubelet.io/image-pulls"));
    assertThat(pulls.get(0).path("image").asText()).isEqualTo(slow);
    assertThat(pulls.get(0).path("containers").get(0).asText()).isEqualTo("app");
    assertThat(pulls.get(0).path("bytes").asLong()).isPositive();

    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> status("slow").orElseThrow().getState().getRunning() != null);
    assertThat(events("slow"))
        .anyMatch(e -> e.startsWith("Normal Pulled (x1): Successfully pulled image \"" + slow));
    assertThat(jkubelet.pod("slow-" + node).orElseThrow().getMetadata().getAnnotations())
        .as("no pull in flight")
        .doesNotContainKey("jkubelet.io/image-pulls");
    String metrics = jkubelet.get("/metrics").body();
    assertThat(metrics)
        .containsPattern("(?m)^kubelet_image_pull_bytes_total [1-9][0-9.E]+$")
        .containsPattern("(?m)^kubelet_image_pull_duration_seconds_count [1-9]")
        .containsPattern("(?m)^kubelet_image_pull_in_flight 0");
  }

  @Test
  void aPullThatStallsMidLayerIsCancelledAtTheDeadlineAndRetried() throws Exception {
    proxy.bytesPerSecond = 0;
    proxy.stallAfter = 5_000_000;
    staticPod("stalled", stalled);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(events("stalled"))
                    .anyMatch(
                        e ->
                            e.startsWith("Warning Failed (x")
                                && e.contains(
                                    "): Failed to pull image \""
                                        + stalled
                                        + "\": rpc error: code = Unknown desc = Cancel pulling"
                                        + " image \""
                                        + stalled
                                        + "\" because of no progress for 15s, latest progress:")));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              String reason = status("stalled").orElseThrow().getState().getWaiting().getReason();
              return reason.equals("ErrImagePull") || reason.equals("ImagePullBackOff");
            });

    proxy.stallAfter = -1; // the link works again: the retry under the backoff succeeds
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> status("stalled").orElseThrow().getState().getRunning() != null);
    assertThat(jkubelet.log()).contains("Cancel pulling image \"" + stalled + "\"");
  }
}
