package io.jkubelet.agent.e2e;

import static io.jkubelet.agent.e2e.PressureNode.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PID pressure against the real API server and Docker, with real processes made on this machine:
 * {@code pid.available} is {@code kernel.pid_max} minus the machine's tasks, so the hard threshold
 * is set {@value #MARGIN} below what the machine has available at the test's start, and a
 * BestEffort pod forks {@value #FORKS} {@code sleep}s to cross it. That is a few percent of the pid
 * space at most: the machine's real limit is never near.
 */
@Timeout(240)
class PidPressureE2EIT {
  /** How far below the machine's available pids the threshold is: room for jkubelet and noise. */
  static final long MARGIN = 800;

  /** How many processes the forking pod makes: well past the margin. */
  static final int FORKS = 2000;

  @RegisterExtension final PressureNode n = new PressureNode("pid");
  private final String node = n.node;
  private final String ns = n.ns;

  /** What jkubelet reads: {@code pid_max} minus the tasks of {@code /proc/loadavg}. */
  static long pidAvailable() throws IOException {
    // By lines: the JDK reads only the first byte of some kernel files otherwise.
    long max =
        Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim());
    String[] f = Files.readAllLines(Path.of("/proc/loadavg")).get(0).trim().split("\\s+");
    return max - Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
  }

  @Test
  void aPodForkingPastPidAvailableIsEvictedAndThePressureRefusesEveryPodThenClears()
      throws Exception {
    long threshold = pidAvailable() - MARGIN;
    n.start(
        List.of(
            "--eviction-hard=pid.available<" + threshold,
            "--eviction-pressure-transition-period=20s"));

    // A bystander, BestEffort too, with a process or two: created first, so only the ranking by
    // the pods' processes (upstream's rankPIDPressure) can put the forker before it.
    Kubectl.apply(ns, Kubectl.boundPod("bystander", node, container("app", "sleep 3600", "{}")));
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> n.pod("bystander").at("/status/phase").asText().equals("Running"));
    assertThat(n.conditionJson("PIDPressure").get("status").asText())
        .as("no PID pressure before the forks (another load on the machine?)")
        .isEqualTo("False");

    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "forker",
            node,
            container(
                "forks",
                "i=0; while [ $i -lt " + FORKS + " ]; do sleep 3600 & i=$((i+1)); done; wait",
                "{}")));

    JsonNode forker =
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .until(() -> n.pod("forker"), p -> p.at("/status/phase").asText().equals("Failed"));
    assertThat(forker.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(forker.at("/status/message").asText())
        .isEqualTo("The node was low on resource: pids. ");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Kubectl.events(ns, "forker"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.get("reason").asText()).isEqualTo("Evicted");
                          assertThat(e.get("type").asText()).isEqualTo("Warning");
                        }));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode c = n.conditionJson("PIDPressure");
              assertThat(c.get("status").asText()).isEqualTo("True");
              assertThat(c.get("reason").asText()).isEqualTo("KubeletHasInsufficientPID");
              assertThat(c.get("message").asText())
                  .isEqualTo("kubelet has insufficient PID available");
              assertThat(Kubectl.events("default", node))
                  .extracting(e -> e.get("reason").asText())
                  .contains("EvictionThresholdMet", "NodeHasInsufficientPID");
            });

    // Under PID pressure every pod is refused, a Burstable one too (under MemoryPressure only
    // BestEffort ones are).
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "late", node, container("app", "sleep 3600", "{requests: {memory: 16Mi}}")));
    JsonNode late =
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> n.pod("late"), p -> p.at("/status/phase").asText().equals("Failed"));
    assertThat(late.at("/status/reason").asText()).isEqualTo("Evicted");
    assertThat(late.at("/status/message").asText())
        .isEqualTo("Pod The node had condition: [PIDPressure]. ");

    // The forks die with their pod: the pressure clears after the transition period.
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode c = n.conditionJson("PIDPressure");
              assertThat(c.get("status").asText()).isEqualTo("False");
              assertThat(c.get("reason").asText()).isEqualTo("KubeletHasSufficientPID");
            });
    JsonNode bystander = n.pod("bystander");
    assertThat(bystander.at("/status/phase").asText()).isEqualTo("Running");
    assertThat(bystander.at("/status/containerStatuses/0/restartCount").asInt()).isZero();
    assertThat(n.jkubelet().get("/metrics").body())
        .contains("kubelet_evictions{eviction_signal=\"pid.available\"} 1");
  }
}
