package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pod start-up timelines end to end, on the real engine and a real control plane: the {@code
 * StartupTimeline} event at a pod's first Ready (through the API server), the whole timeline at
 * {@code /pods/{namespace}/{name}/timeline} (through the API server's node proxy, and a 404 for a
 * pod the node has none of), {@code kubelet_pod_start_phase_duration_seconds} on {@code /metrics},
 * and a restart of jkubelet in the middle of a start, made deterministic by an init container that
 * waits on a file the test creates once the new process runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class StartupTimelineE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUSYBOX = "jkubelet/busybox:1.35";

  @RegisterExtension static final ClusterNode cluster = new ClusterNode("tl");
  private final String node = cluster.node;
  private final String ns = cluster.ns;

  private JsonNode timeline(String pod) throws Exception {
    return JSON.readTree(
        Kubectl.run(
                "get",
                "--raw",
                "/api/v1/nodes/" + node + "/proxy/pods/" + ns + "/" + pod + "/timeline")
            .ok()
            .out());
  }

  private List<String> phases(JsonNode timeline) {
    List<String> out = new ArrayList<>();
    for (JsonNode p : timeline.path("phases")) {
      out.add(
          p.path("phase").asText() + (p.hasNonNull("name") ? " " + p.path("name").asText() : ""));
    }
    return out;
  }

  private static JsonNode phase(JsonNode timeline, String label, String name) {
    for (JsonNode p : timeline.path("phases")) {
      if (p.path("phase").asText().equals(label)
          && (name == null || name.equals(p.path("name").asText()))) {
        return p;
      }
    }
    throw new AssertionError("no phase " + label + " " + name + " in " + timeline);
  }

  private String startupEvent(String pod) throws Exception {
    return Kubectl.events(ns, pod).stream()
        .filter(e -> e.path("reason").asText().equals("StartupTimeline"))
        .map(e -> e.path("type").asText() + " " + e.path("message").asText())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no StartupTimeline event yet"));
  }

  private String metrics() throws Exception {
    return Kubectl.run("get", "--raw", "/api/v1/nodes/" + node + "/proxy/metrics").ok().out();
  }

  @Test
  void aPodsFirstReadyGivesTheEventTheTimelineAndTheHistograms() throws Exception {
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "plain",
            node,
            "  - name: app\n"
                + "    image: "
                + BUSYBOX
                + "\n"
                + "    command: [sh, -c, \"trap 'exit 0' TERM; sleep 3600 & wait\"]\n"
                + "    readinessProbe: {exec: {command: ['true']}, periodSeconds: 1}"));

    String event =
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .until(() -> startupEvent("plain"), e -> true);
    assertThat(event)
        .matches(
            "Normal Ready \\d+\\.\\ds after admission; longest: [a-z ]+\\d+\\.\\ds.*"
                + "(, [a-z ]+ \\d+\\.\\ds){2}");
    JsonNode t = timeline("plain");
    assertThat(t.path("uid").asText()).isNotEmpty();
    assertThat(t.path("ready").asText()).isNotEmpty();
    assertThat(t.path("restarted").asBoolean()).isFalse();
    assertThat(phases(t))
        .startsWith("admission")
        .contains("sandbox", "volumes", "container app", "readiness");
    assertThat(phase(t, "container", "app").path("seconds").asDouble()).isPositive();
    assertThat(metrics())
        .contains("# TYPE kubelet_pod_start_phase_duration_seconds histogram")
        .containsPattern(
            "kubelet_pod_start_phase_duration_seconds_count\\{phase=\"container_start\"} [1-9]")
        .containsPattern(
            "kubelet_pod_start_phase_duration_seconds_count\\{phase=\"sandbox\"} [1-9]")
        .contains("kubelet_pod_start_duration_seconds_count");
  }

  @Test
  void aPodTheNodeHasNoTimelineOfIsA404ThatSaysSo() throws Exception {
    try (HttpClient http =
        HttpClient.newBuilder().sslContext(io.jkubelet.agent.testing.TrustAll.context()).build()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "https://127.0.0.1:"
                              + cluster.jkubelet().apiPort()
                              + "/pods/"
                              + ns
                              + "/nothere/timeline"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body())
          .isEqualTo("pod \"" + ns + "/nothere\" has no start-up timeline on this node\n");
    }
  }

  @Test
  void aRestartInTheMiddleOfAStartKeepsTheTimelineAndSaysSo() throws Exception {
    Path gate = Files.createDirectories(cluster.tmp().resolve("gate"));
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: gated}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          volumes:
          - {name: gate, hostPath: {path: %s}}
          initContainers:
          - name: wait
            image: %s
            command: [sh, -c, 'until [ -f /gate/go ]; do sleep 0.2; done']
            volumeMounts: [{name: gate, mountPath: /gate}]
          containers:
          - name: app
            image: %s
            command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]
            readinessProbe: {exec: {command: ['true']}, periodSeconds: 1}
        """
            .formatted(node, gate, BUSYBOX, BUSYBOX));
    // The init container runs, and waits on the gate: its phase is open.
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(phase(timeline("gated"), "init", "wait").has("ended")).isFalse());

    cluster.restart("jkubelet-restarted.log");
    // The gate opens once the new process has the pod again, so the init container ends after it.
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(phases(timeline("gated"))).contains("kubelet restarted"));
    Files.createFile(gate.resolve("go"));

    String event =
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .until(() -> startupEvent("gated"), e -> true);
    assertThat(event)
        .matches(
            "Normal Ready \\d+\\.\\ds after admission \\(jkubelet restarted meanwhile\\); longest: .*"
                + "init wait \\d+\\.\\ds.*");
    JsonNode t = timeline("gated");
    assertThat(t.path("restarted").asBoolean()).isTrue();
    assertThat(phases(t))
        .containsSubsequence(
            "admission", "sandbox", "init wait", "kubelet restarted", "container app", "readiness");
    JsonNode init = phase(t, "init", "wait");
    assertThat(java.time.Instant.parse(init.path("ended").asText()))
        .as("the init container's exit, after the restart")
        .isAfter(
            java.time.Instant.parse(phase(t, "kubelet restarted", null).path("began").asText()));
    assertThat(metrics())
        .containsPattern(
            "kubelet_pod_start_phase_duration_seconds_count\\{phase=\"init_container\"} 1");
  }
}
