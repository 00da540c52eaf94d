package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The API server cannot be reached: a kubeconfig that points to a closed port. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeStatusManagerUnreachableTest {
  @TempDir Path dir;
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private KubernetesClient client;
  private ApiNodeStatusManager manager;

  @BeforeEach
  void closedPort() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: closed
          cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}
        users:
        - name: nobody
          user: {token: "not-a-token"}
        contexts:
        - name: closed
          context: {cluster: closed, user: nobody}
        current-context: closed
        """
            .formatted(port));
    NodeOptions options =
        NodeOptions.defaults("node-unreachable", "127.0.0.1", dir)
            .withFrequencies(Duration.ofMillis(200), Duration.ofMinutes(5));
    client =
        HeartbeatClient.create(Config.fromKubeconfig(kubeconfig.toFile()), Duration.ofSeconds(2));
    manager =
        new ApiNodeStatusManager(
            options,
            client,
            new Time(clock, new RecordingSleeper(clock), schedulers),
            new NodeStatusManager.Sources(
                NodeStatusesTest.MACHINE,
                () -> "docker://20.10.24",
                List::of,
                () -> Health.OK,
                NodeResources.NONE),
            EventRecorder.NOOP);
  }

  @AfterEach
  void close() {
    manager.stop();
    client.close();
  }

  @Test
  void startNeverThrowsAndHealthReportsTheFailure() {
    manager.start();
    assertThat(manager.healthy().ok()).as("within the first three periods").isTrue();

    assertThat(schedulers.created()).containsExactly("node-status");

    // Attempts at 0, 100 and 300 ms; the next is due at 700 ms.
    schedulers.advance(Duration.ofMillis(601));
    assertThat(manager.healthy().message())
        .contains("node node-unreachable is not registered after 601ms")
        .contains("threshold 600ms")
        .contains("Connection refused");
    assertThat(manager.healthy().ok()).isFalse();
    assertThat(schedulers.pending()).as("the next attempt").isEqualTo(1);
    assertThat(manager.lastReported()).isEmpty();

    manager.stop();
    assertThat(manager.healthy().message()).isEqualTo("NodeStatus: not running");
    assertThat(schedulers.pending()).as("stop closes the scheduler").isZero();
  }

  @Test
  void registrationBacksOffFrom100msTo7s() {
    List<Duration> waits = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      waits.add(manager.syncOnce());
    }
    assertThat(waits)
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800),
            Duration.ofMillis(1600),
            Duration.ofMillis(3200),
            Duration.ofMillis(6400),
            Duration.ofSeconds(7),
            Duration.ofSeconds(7));
  }

  @Test
  void aLeaseHeartbeatReportsTheFailureInsteadOfThrowing() {
    NodeLease lease = new NodeLease(client, "node-unreachable", 40);
    assertThat(lease.heartbeat(clock.instant(), null, Duration.ofMillis(200)))
        .hasValueSatisfying(error -> assertThat(error).contains("Connection refused"));
  }

  @Test
  void aManagerThatWasNotStartedIsNotHealthy() {
    assertThat(manager.healthy().ok()).isFalse();
    assertThat(manager.healthy().message()).isEqualTo("NodeStatus: not running");
  }
}
