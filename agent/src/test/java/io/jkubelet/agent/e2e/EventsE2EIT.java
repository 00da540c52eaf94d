package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every pod's story in {@code kubectl describe}: jkubelet in cluster mode against the real API
 * server and Docker, asserted through the events that kubectl shows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class EventsE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension static final ClusterNode cluster = new ClusterNode("ev");
  private final String node = cluster.node;
  private final String ns = cluster.ns;

  private void apply(String yaml) throws Exception {
    Kubectl.apply(ns, yaml);
  }

  private List<JsonNode> events(String namespace, String name) throws Exception {
    return Kubectl.events(namespace, name);
  }

  private static String pod(String name, String node, String containers) {
    return Kubectl.boundPod(name, node, containers);
  }

  @Test
  void theNodeTellsItStartedAndIsReady() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              List<String> reasons =
                  events("default", node).stream().map(e -> e.path("reason").asText()).toList();
              assertThat(reasons).contains("Starting", "NodeReady");
            });
    JsonNode starting =
        events("default", node).stream()
            .filter(e -> e.path("reason").asText().equals("Starting"))
            .findFirst()
            .orElseThrow();
    assertThat(starting.path("involvedObject").path("uid").asText()).isEqualTo(node);
    assertThat(starting.path("source").path("component").asText()).isEqualTo("kubelet");
    assertThat(starting.path("message").asText()).isEqualTo("Starting kubelet.");
  }

  @Test
  void describeShowsTheLifeOfAPodCrashLoopsAndMissingImages() throws Exception {
    apply(
        pod(
            "crash",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sh, -c, 'exit 1']}"));
    apply(
        pod("never", node, "  - {name: c, image: 'jkubelet/not-there:1', imagePullPolicy: Never}"));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String d = Kubectl.describe(ns, "crash");
              assertThat(d).contains("Created container c", "Started container c");
              assertThat(d)
                  .containsPattern(
                      "Warning\\s+BackOff\\s+.*\\(x\\d+ over .*kubelet\\s+Back-off restarting failed container");
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "never"))
                    .containsPattern(
                        "Warning\\s+ErrImageNeverPull\\s+.*Container image \"jkubelet/not-there:1\" is not present with pull policy of Never"));
    // The events reference the exact pod and container.
    String uid =
        JSON.readTree(Kubectl.run("-n", ns, "get", "pod", "crash", "-o", "json").ok().out())
            .path("metadata")
            .path("uid")
            .asText();
    JsonNode started =
        events(ns, "crash").stream()
            .filter(e -> e.path("reason").asText().equals("Started"))
            .findFirst()
            .orElseThrow();
    assertThat(started.path("involvedObject").path("uid").asText()).isEqualTo(uid);
    assertThat(started.path("involvedObject").path("fieldPath").asText())
        .isEqualTo("spec.containers{c}");
  }

  @Test
  void deletingAPodRecordsKilling() throws Exception {
    apply(
        pod(
            "doomed",
            node,
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600']}"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> Kubectl.describe(ns, "doomed").contains("Started container c"));
    Kubectl.run("-n", ns, "delete", "pod", "doomed", "--timeout=60s").ok();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(events(ns, "doomed"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.path("reason").asText()).isEqualTo("Killing");
                          assertThat(e.path("message").asText()).isEqualTo("Stopping container c");
                        }));
  }

  /**
   * Seed 000: a pod of 10 containers, one of which is killed for its memory limit again and again.
   * Upstream, the Pulled/Created/Started events of the 10 containers spend the pod's spam budget
   * and the Warnings that matter are dropped; jkubelet shows them.
   */
  @Test
  void aTenContainerPodWithAnOomKillerShowsItsWarnings() throws Exception {
    StringBuilder containers = new StringBuilder();
    for (int i = 0; i < 9; i++) {
      containers
          .append("  - {name: c")
          .append(i)
          .append(", image: jkubelet/busybox:1.35, command: [sleep, '3600']}\n");
    }
    containers.append(
        "  - {name: hog, image: jkubelet/busybox:1.35, command: [sh, -c, 'sleep 1; exec dd if=/dev/zero of=/dev/null bs=64M count=1'], resources: {limits: {memory: 16Mi}}}");
    apply(pod("seed", node, containers.toString()));
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              String d = Kubectl.describe(ns, "seed");
              assertThat(d)
                  .containsPattern(
                      "Warning\\s+OOMKilled\\s+.*Container hog was killed for exceeding its memory limit of 16Mi");
              assertThat(d)
                  .containsPattern("Warning\\s+BackOff\\s+.*Back-off restarting failed container");
              assertThat(d).contains("Started container c0", "Started container c8");
            });
    // Repeats are counted on one row, not piled up.
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "seed"))
                    .containsPattern(
                        "\\(x\\d+ over [^)]*\\)\\s+kubelet\\s+Back-off restarting failed container"));

    // What upstream's spam filter would have done with the same events, replayed in order.
    List<io.fabric8.kubernetes.api.model.Event> seen = new ArrayList<>();
    for (JsonNode e : events(ns, "seed")) {
      for (int n = 0; n < Math.max(1, e.path("count").asInt(1)); n++) {
        seen.add(
            io.jkubelet.agent.util.ApiSerialization.SHARED.convertValue(
                e, io.fabric8.kubernetes.api.model.Event.class));
      }
    }
    seen.sort(
        java.util.Comparator.comparing(io.fabric8.kubernetes.api.model.Event::getFirstTimestamp));
    var upstream =
        new io.jkubelet.agent.events.EventCorrelator(
            new io.jkubelet.agent.util.FakeClock(),
            io.jkubelet.agent.events.CorrelatorOptions.upstream());
    long warningsDropped =
        seen.stream()
            .map(upstream::correlate)
            .filter(
                c ->
                    c instanceof io.jkubelet.agent.events.Correlation.Drop d
                        && "Warning".equals(d.event().getType()))
            .count();
    System.out.println(
        "upstream's spam filter would have dropped " + warningsDropped + " of these Warnings");
    assertThat(warningsDropped).as("upstream would have lost Warnings here").isPositive();
  }

  /**
   * The API server goes away for a minute while containers crash and one is OOM-killed: once it
   * returns, every Warning recorded meanwhile reaches it (the sink retries for about two minutes,
   * and its bounded queue keeps room for Warnings).
   */
  @Test
  void noWarningIsLostWhenTheApiServerIsAwayDuringAStorm() throws Exception {
    StringBuilder containers = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      containers
          .append("  - {name: crash")
          .append(i)
          .append(", image: jkubelet/busybox:1.35, command: [sh, -c, 'exit 1']}\n");
    }
    containers.append(
        "  - {name: late, image: jkubelet/busybox:1.35, command: [sh, -c, 'sleep 20; exec dd if=/dev/zero of=/dev/null bs=64M count=1'], resources: {limits: {memory: 16Mi}}}");
    apply(pod("storm", node, containers.toString()));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> Kubectl.describe(ns, "storm").contains("Started container late"));

    Kubectl.killApiServer();
    long down = System.nanoTime();
    try {
      // A minute away, during which the late container is OOM-killed and the crashers crash on.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  cluster
                          .jkubelet()
                          .log()
                          .contains("Container late was killed for exceeding its memory limit")
                      && System.nanoTime() - down >= Duration.ofSeconds(60).toNanos());
    } finally {
      Kubectl.controlPlaneUp();
    }
    // Every Warning jkubelet recorded for the pod reaches the API server within the retry window.
    java.util.regex.Pattern warning =
        java.util.regex.Pattern.compile(
            "Event\\(Pod " + ns + "/storm[^)]*\\): type: 'Warning' reason: '([A-Za-z]+)' (.*)$");
    await()
        .atMost(Duration.ofSeconds(150))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              java.util.Set<String> logged = new java.util.TreeSet<>();
              for (String line : cluster.jkubelet().log().lines().toList()) {
                var m = warning.matcher(line);
                if (m.find()) {
                  logged.add(m.group(1) + ": " + m.group(2));
                }
              }
              java.util.Set<String> inApi = new java.util.TreeSet<>();
              for (JsonNode e : events(ns, "storm")) {
                if ("Warning".equals(e.path("type").asText())) {
                  inApi.add(e.path("reason").asText() + ": " + e.path("message").asText());
                }
              }
              assertThat(logged).anyMatch(w -> w.startsWith("OOMKilled: Container late"));
              assertThat(inApi).containsAll(logged);
            });
  }
}
