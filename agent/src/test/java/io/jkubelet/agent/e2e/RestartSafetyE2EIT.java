package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stopping jkubelet, by SIGTERM or SIGKILL, leaves the pods running; starting it again adopts them:
 * no container is restarted and restart counts are kept.
 */
@Timeout(180)
class RestartSafetyE2EIT {
  private final String node = "e2e-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeEach
  void setUp() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-restart");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    // Restarts once (the first run leaves a mark in its emptyDir and fails), then runs.
    Files.writeString(
        manifests.resolve("steady.yaml"),
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: steady}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - name: once
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'if [ -f /data/ran ]; then exec sleep 3600; fi; touch /data/ran; exit 1']
            volumeMounts: [{name: data, mountPath: /data}]
          - {name: plain, image: jkubelet/busybox:1.35, command: [sleep, '3600']}
          volumes: [{name: data, emptyDir: {}}]
        """);
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
        new JkubeletProcess(node, manifests, tmp.resolve("root"), tmp.resolve("jkubelet.log"))
            .start();
    jkubelet.awaitHealthy();
  }

  private Pod steady() {
    return jkubelet.pod("steady-" + node).orElseThrow();
  }

  private static ContainerStatus status(Pod p, String name) {
    return p.getStatus().getContainerStatuses().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  /** Running containers of this node: id → name. */
  private Map<String, String> running() {
    return TestDocker.withLabels(docker, Map.of(Labels.NODE, node)).stream()
        .filter(c -> "running".equals(c.getState()))
        .collect(Collectors.toMap(Container::getId, c -> c.getNames()[0]));
  }

  private void awaitSteady() {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              Pod p = steady();
              return status(p, "once").getRestartCount() == 1
                  && status(p, "once").getState().getRunning() != null
                  && status(p, "plain").getState().getRunning() != null;
            });
  }

  @Test
  void sigtermAndSigkillLeavePodsRunningAndARestartAdoptsThem() throws Exception {
    start();
    awaitSteady();
    Map<String, String> before = running();
    assertThat(before).hasSize(3); // sandbox and two containers

    // SIGTERM, as systemd stops it: status 0, which systemd counts as a clean stop (the JVM's own
    // 143 left the unit failed after `systemctl stop`).
    assertThat(jkubelet.stop()).as("jkubelet's exit status after SIGTERM").isZero();
    assertThat(running()).isEqualTo(before);
    restartAndAssertNothingRestarted(before);

    // SIGKILL: no chance to clean up.
    jkubelet.kill9();
    assertThat(running()).isEqualTo(before);
    restartAndAssertNothingRestarted(before);
  }

  /** Starts jkubelet again; several relists and housekeeping runs later, nothing was restarted. */
  private void restartAndAssertNothingRestarted(Map<String, String> before) throws Exception {
    start();
    awaitSteady();
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(running()).isEqualTo(before);
              assertThat(status(steady(), "once").getRestartCount()).isEqualTo(1);
              assertThat(status(steady(), "plain").getRestartCount()).isZero();
            });
  }
}
