package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each app container's {@code oom_score_adj}, as upstream's {@code qos/policy.go} gives it, read
 * from the host's {@code /proc/<pid>/oom_score_adj} of pods bound by the API server (static pods
 * are critical, and would all get the Guaranteed value): BestEffort 1000; Burstable {@code 1000 -
 * 1000 * request / MemTotal}; Guaranteed -997, or 0 on a host that refuses a negative value (this
 * VM refuses it even to root; the test asks the host the same way jkubelet does).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class OomScoreE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SLEEPER =
      "image: jkubelet/busybox:1.35\n    command: [sh, -c, \"trap 'exit 0' TERM; sleep 3600 & wait\"]";

  @RegisterExtension static final ClusterNode cluster = new ClusterNode("oom");

  private final String node = cluster.node;
  private final String ns = cluster.ns;
  private final DockerClient docker = TestDocker.client();

  @AfterAll
  void close() throws Exception {
    docker.close();
  }

  @Test
  void eachQosClassGetsUpstreamsOomScoreAdj() throws Exception {
    Kubectl.apply(ns, Kubectl.boundPod("besteffort", node, "  - name: c\n    " + SLEEPER + "\n"));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "burstable",
            node,
            "  - name: c\n    " + SLEEPER + "\n    resources: {requests: {memory: 256Mi}}\n"));
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "guaranteed",
            node,
            "  - name: c\n    "
                + SLEEPER
                + "\n    resources: {limits: {cpu: 100m, memory: 64Mi}}\n"));
    long memTotal = memTotal();
    boolean negativeAllowed =
        new ProcessBuilder("sh", "-c", "echo -1 > /proc/self/oom_score_adj")
                .redirectErrorStream(true)
                .start()
                .waitFor()
            == 0;

    assertThat(oomScoreAdj(awaitRunning("besteffort"))).isEqualTo(1000);
    assertThat(oomScoreAdj(awaitRunning("burstable")))
        .isEqualTo(Math.min(999, Math.max(3, 1000 - (1000 * (256L << 20)) / memTotal)));
    assertThat(oomScoreAdj(awaitRunning("guaranteed"))).isEqualTo(negativeAllowed ? -997 : 0);
    assertThat(restartCount("guaranteed")).as("no start failed on the way").isZero();
  }

  private static long memTotal() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new AssertionError("no MemTotal");
  }

  private int oomScoreAdj(String containerId) throws Exception {
    long pid = docker.inspectContainerCmd(containerId).exec().getState().getPidLong();
    return Integer.parseInt(
        Files.readAllLines(Path.of("/proc/" + pid + "/oom_score_adj")).get(0).trim());
  }

  private JsonNode container(String pod) throws Exception {
    JsonNode p = JSON.readTree(Kubectl.run("-n", ns, "get", "pod", pod, "-o", "json").ok().out());
    return p.path("status").path("containerStatuses").path(0);
  }

  private int restartCount(String pod) throws Exception {
    return container(pod).path("restartCount").asInt();
  }

  /** Waits until the pod's container runs, and returns its Docker id. */
  private String awaitRunning(String pod) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () -> {
              JsonNode s = container(pod);
              return s.path("state").has("running")
                  ? s.path("containerID").asText().replace("docker://", "")
                  : null;
            },
            id -> id != null && !id.isEmpty());
  }
}
