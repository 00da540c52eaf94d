package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the OOM killer killed, on the real engine and kernel, against a real API server: a container
 * whose main process is killed for its 16Mi limit, and one whose child is killed while its main
 * process runs on. {@code dd} with a 64M block allocates past the limit. Where the kernel log is
 * readable (this bed runs as root), the events name the process; the counter is on {@code
 * /metrics}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class OomKillsE2EIT {
  @RegisterExtension static final ClusterNode cluster = new ClusterNode("oom");
  private final String node = cluster.node;
  private final String ns = cluster.ns;

  private List<JsonNode> warnings(String pod, String reason) throws Exception {
    return Kubectl.events(ns, pod).stream()
        .filter(e -> e.path("type").asText().equals("Warning"))
        .filter(e -> e.path("reason").asText().equals(reason))
        .toList();
  }

  @Test
  void aMainProcessKilledForItsLimitIsNamedWithItsUsage() throws Exception {
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "main",
            node,
            "  - {name: hog, image: jkubelet/busybox:1.35, command: [sh, -c, 'sleep 1; exec dd"
                + " if=/dev/zero of=/dev/null bs=64M count=1'], resources: {limits: {memory:"
                + " 16Mi}}}"));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(warnings("main", "OOMKilled"))
                    .map(e -> e.path("message").asText())
                    .anySatisfy(
                        m ->
                            assertThat(m)
                                .startsWith(
                                    "Container hog was killed for exceeding its memory limit of"
                                        + " 16Mi (restart count ")
                                .containsPattern(
                                    "the OOM killer killed process \\d+ \\(dd\\), the container's"
                                        + " main process; memory usage [0-9.]+[KM]i of its 16Mi"
                                        + " limit")));
    assertThat(warnings("main", "OOMKilling")).as("the main process is no child").isEmpty();
  }

  @Test
  void aChildKilledWhileTheMainProcessRunsOnGetsItsOwnWarning() throws Exception {
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "child",
            node,
            "  - {name: app, image: jkubelet/busybox:1.35, command: [sh, -c, 'sleep 1; (dd"
                + " if=/dev/zero of=/dev/null bs=64M count=1); exec sleep 3600'], resources:"
                + " {limits: {memory: 16Mi}}}"));
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(warnings("child", "OOMKilling"))
                    .map(e -> e.path("message").asText())
                    .anySatisfy(
                        m ->
                            assertThat(m)
                                .containsPattern(
                                    "^Process \\d+ \\(dd\\) of container app was killed by the OOM"
                                        + " killer, not the container's main process; the"
                                        + " container's main process \\(pid \\d+\\) runs on;"
                                        + " memory usage [0-9.]+[KM]?i? of its 16Mi limit")));
    // The container itself was never killed: it runs on, not restarted, with no OOMKilled.
    String state =
        Kubectl.run(
                "-n",
                ns,
                "get",
                "pod",
                "child",
                "-o",
                "jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.running.startedAt}")
            .ok()
            .out();
    assertThat(state).startsWith("0 ").hasSizeGreaterThan(3);
    assertThat(warnings("child", "OOMKilled")).isEmpty();

    // The kill is counted.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(cluster.jkubelet().get("/metrics").body())
                    .containsPattern(
                        "(?m)^kubelet_container_oom_kills_total\\{container=\"app\",namespace=\""
                            + ns
                            + "\",pod=\"child\"} 1(\\.0)?$"));
  }
}
