package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Probes and lifecycle hooks, end to end: jkubelet in cluster mode against the real API server and
 * Docker, with real probe targets (busybox httpd, a TCP listener, files that exec probes test), and
 * the results asserted through {@code kubectl get} and {@code kubectl describe}. The files that the
 * probes look at live in a hostPath directory that the tests change from outside.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class ProbesE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension static final ClusterNode cluster = new ClusterNode("pr");
  private final String node = cluster.node;
  private final String ns = cluster.ns;

  /**
   * The YAML list of one container, {@code app}, that waits for SIGTERM with the probe directory at
   * {@code /probe}; {@code fields} are more of its fields (probes, lifecycle), unindented.
   */
  private static String waiting(String fields) {
    return """
          - name: app
            image: jkubelet/busybox:1.35
            command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
            volumeMounts: [{name: probe, mountPath: /probe}]
        """
        + fields.indent(4);
  }

  /** A directory on the host that a pod mounts at {@code /probe}. */
  private Path hostDir(String name) throws Exception {
    return Files.createDirectories(cluster.tmp().resolve("host").resolve(name));
  }

  /**
   * A pod bound to the node with {@code dir} as its volume {@code probe}, which its containers
   * mount at {@code /probe}; {@code containers} is the YAML list of its containers.
   */
  private String pod(String name, Path dir, String containers) {
    return Kubectl.boundPod(
        name,
        node,
        "  - {name: probe, hostPath: {path: '%s', type: Directory}}".formatted(dir),
        containers);
  }

  private JsonNode get(String pod) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", pod, "-o", "json").ok().out());
  }

  /** The READY column of {@code kubectl get pod}, e.g. "1/1". */
  private String readyColumn(String pod) throws Exception {
    String line = Kubectl.run("-n", ns, "get", "pod", pod, "--no-headers").ok().out().trim();
    return line.split("\\s+")[1];
  }

  private static JsonNode condition(JsonNode pod, String type) {
    for (JsonNode c : pod.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return c;
      }
    }
    throw new AssertionError("no " + type + " condition in " + pod.path("status"));
  }

  private static JsonNode container(JsonNode pod) {
    return pod.path("status").path("containerStatuses").path(0);
  }

  @Test
  void aFailingLivenessProbeRestartsTheContainerAndDescribeSaysWhy() throws Exception {
    Path dir = hostDir("live");
    Files.writeString(dir.resolve("healthz"), "ok\n");
    Kubectl.apply(
        ns,
        pod(
            "live",
            dir,
            """
              - name: web
                image: jkubelet/busybox:1.35
                command: [httpd, -f, -p, '8080', -h, /probe]
                ports: [{name: http, containerPort: 8080}]
                volumeMounts: [{name: probe, mountPath: /probe}]
                livenessProbe:
                  httpGet: {path: /healthz, port: http}
                  periodSeconds: 1
                  failureThreshold: 2
            """));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> container(get("live")).path("state").has("running"));
    String firstId = container(get("live")).path("containerID").asText();

    Files.delete(dir.resolve("healthz")); // httpd now answers 404
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode c = container(get("live"));
              assertThat(c.path("restartCount").asInt()).isGreaterThanOrEqualTo(1);
              assertThat(c.path("containerID").asText()).isNotEqualTo(firstId);
            });
    Files.writeString(dir.resolve("healthz"), "ok again\n"); // the new container stays healthy

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "live"))
                    .containsPattern(
                        "Warning\\s+Unhealthy\\s+.*kubelet\\s+Liveness probe failed: HTTP probe"
                            + " failed with statuscode: 404, body: \"<HTML><HEAD><TITLE>404 Not"
                            + " Found")
                    .containsPattern(
                        "Normal\\s+Killing\\s+.*kubelet\\s+Container web failed liveness probe,"
                            + " will be restarted"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode c = container(get("live"));
              assertThat(c.path("state").has("running")).isTrue();
              assertThat(c.path("lastState").path("terminated").path("exitCode").asInt())
                  .isNotZero();
            });
  }

  @Test
  void aReadinessProbeMovesReadyBothWaysAndKubectlFollowsWithinTwoSeconds() throws Exception {
    Path dir = hostDir("ready");
    Kubectl.apply(
        ns,
        pod(
            "ready",
            dir,
            waiting(
                """
                readinessProbe:
                  exec: {command: [test, -f, /probe/ready]}
                  periodSeconds: 1
                  failureThreshold: 1
                """)));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode p = get("ready");
              assertThat(container(p).path("state").has("running")).isTrue();
              assertThat(container(p).path("started").asBoolean()).isTrue();
              assertThat(condition(p, "Ready").path("status").asText()).isEqualTo("False");
              assertThat(condition(p, "ContainersReady").path("reason").asText())
                  .isEqualTo("ContainersNotReady");
              assertThat(readyColumn("ready")).isEqualTo("0/1");
            });
    String notReadySince = condition(get("ready"), "Ready").path("lastTransitionTime").asText();
    // Transition times have whole seconds: the flip comes in a later second than the last one, so
    // that a transition time left unchanged shows.
    long notReadySecond = Instant.parse(notReadySince).getEpochSecond();
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Instant.now().getEpochSecond() > notReadySecond);

    Files.writeString(dir.resolve("ready"), "");
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> readyColumn("ready").equals("1/1"));
    JsonNode ready = get("ready");
    assertThat(condition(ready, "Ready").path("status").asText()).isEqualTo("True");
    assertThat(condition(ready, "ContainersReady").path("status").asText()).isEqualTo("True");
    assertThat(container(ready).path("ready").asBoolean()).isTrue();
    String readySince = condition(ready, "Ready").path("lastTransitionTime").asText();
    assertThat(readySince).isNotEqualTo(notReadySince);

    Files.delete(dir.resolve("ready"));
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> readyColumn("ready").equals("0/1"));
    assertThat(condition(get("ready"), "Ready").path("status").asText()).isEqualTo("False");
    assertThat(container(get("ready")).path("restartCount").asInt()).isZero();
    // The event is written on its own, beside the status: describe shows it once it is in.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "ready"))
                    .containsPattern(
                        "Warning\\s+Unhealthy\\s+.*kubelet\\s+Readiness probe failed: command"
                            + " exited with code 1"));
  }

  @Test
  void aSlowStarterWithAStartupProbeIsNotKilledByItsLivenessProbe() throws Exception {
    Path dir = hostDir("slow");
    // Listens on 8080 only after 8 s. Without the startup probe, the liveness probe (period 1 s,
    // one failure) would kill it within its first seconds, again and again.
    Kubectl.apply(
        ns,
        pod(
            "slow",
            dir,
            """
              - name: app
                image: jkubelet/busybox:1.35
                command: [sh, -c, "sleep 8; exec httpd -f -p 8080 -h /probe"]
                volumeMounts: [{name: probe, mountPath: /probe}]
                startupProbe:
                  tcpSocket: {port: 8080}
                  periodSeconds: 1
                  failureThreshold: 30
                livenessProbe:
                  tcpSocket: {port: 8080}
                  periodSeconds: 1
                  failureThreshold: 1
            """));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode c = container(get("slow"));
              assertThat(c.path("state").has("running")).isTrue();
              assertThat(c.path("started").asBoolean()).isFalse();
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode c = container(get("slow"));
              assertThat(c.path("started").asBoolean()).isTrue();
              assertThat(c.path("ready").asBoolean()).isTrue();
              assertThat(readyColumn("slow")).isEqualTo("1/1");
            });
    // Started, and its liveness probe now runs and passes: still the first container.
    assertThat(container(get("slow")).path("restartCount").asInt()).isZero();
    String d = Kubectl.describe(ns, "slow");
    assertThat(d).contains("Startup probe failed");
    assertThat(d).doesNotContain("failed liveness probe").doesNotContain("Liveness probe failed");
  }

  @Test
  void hooksRunAndAFailedPostStartHookRestartsTheContainer() throws Exception {
    Path dir = hostDir("hooks");
    Kubectl.apply(
        ns,
        pod(
            "hooks",
            dir,
            waiting(
                """
                lifecycle:
                  postStart:
                    exec: {command: [sh, -c, 'date > /probe/post-start']}
                  preStop:
                    exec: {command: [sh, -c, 'echo bye > /probe/pre-stop']}
                """)));
    Kubectl.apply(
        ns,
        pod(
            "badhook",
            dir,
            waiting(
                """
                lifecycle:
                  postStart:
                    exec: {command: [sh, -c, 'echo no config here; exit 3']}
                """)));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> Files.exists(dir.resolve("post-start")));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(Kubectl.describe(ns, "badhook"))
                  .containsPattern(
                      "Warning\\s+FailedPostStartHook\\s+.*kubelet\\s+Exec lifecycle hook \\(\\[sh"
                          + " -c echo no config here; exit 3\\]\\) for Container \"app\" in Pod"
                          + " \"badhook_"
                          + ns
                          + "\\(.*\\)\" failed - error: command '.*' exited with 3, message:"
                          + " \"no config here\\\\n\"");
              assertThat(container(get("badhook")).path("restartCount").asInt())
                  .isGreaterThanOrEqualTo(1);
            });

    Kubectl.run("-n", ns, "delete", "pod", "hooks", "--wait=false").ok();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(Files.readString(dir.resolve("pre-stop"))).isEqualTo("bye\n"));
  }

  @Test
  void aBadProbeDefinitionIsAWarningAndThePodKeepsRunning() throws Exception {
    Path dir = hostDir("bad");
    Kubectl.apply(
        ns,
        pod(
            "badprobe",
            dir,
            waiting(
                """
                livenessProbe:
                  tcpSocket: {port: nosuchport}
                  periodSeconds: 1
                """)));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "badprobe"))
                    .containsPattern(
                        "Warning\\s+Unhealthy\\s+.*kubelet\\s+Liveness probe errored: invalid probe:"
                            + " tcpSocket.port: named port \"nosuchport\" not found"));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(container(get("badprobe")).path("state").has("running")).isTrue());
    // An unusable liveness probe never kills: the container runs on, ready (it has no readiness
    // probe), for longer than the probe's period and failure threshold.
    String since =
        container(get("badprobe")).path("state").path("running").path("startedAt").asText();
    await()
        .pollDelay(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode c = container(get("badprobe"));
              assertThat(c.path("state").path("running").path("startedAt").asText())
                  .isEqualTo(since);
              assertThat(c.path("restartCount").asInt()).isZero();
              assertThat(readyColumn("badprobe")).isEqualTo("1/1");
            });
  }

  @Test
  void aRestartOfJkubeletKeepsAReadyContainerReady() throws Exception {
    Path dir = hostDir("steady");
    Files.writeString(dir.resolve("ready"), "");
    // A long period: a restart that forgot readiness would show the pod unready for up to 20 s.
    Kubectl.apply(
        ns,
        pod(
            "steady",
            dir,
            waiting(
                """
                readinessProbe:
                  exec: {command: [test, -f, /probe/ready]}
                  periodSeconds: 20
                """)));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> readyColumn("steady").equals("1/1"));
    JsonNode before = get("steady");
    String since = condition(before, "Ready").path("lastTransitionTime").asText();
    String id = container(before).path("containerID").asText();

    cluster.jkubelet().stop();
    cluster.jkubelet().start().awaitHealthy();
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              JsonNode p = get("steady");
              return condition(p, "Ready").path("status").asText().equals("True")
                  && condition(p, "Ready").path("lastTransitionTime").asText().equals(since)
                  && container(p).path("containerID").asText().equals(id);
            });
  }
}
