package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.TestPods;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The status manager while no API server answers: it keeps statuses and stays healthy. */
@Timeout(60)
class ApiStatusOfflineTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final List<ApiStatusManager> managers = new ArrayList<>();

  @AfterEach
  void stop() {
    managers.forEach(ApiStatusManager::stop);
  }

  private ApiStatusManager unreachable() throws IOException {
    ApiStatusManager m =
        new ApiStatusManager(
            TestApiServer.unreachableClient(ApiStatusRateBudgetTest.closedPort()),
            Clock.systemUTC(),
            5,
            10,
            p -> false,
            uid -> Optional.empty(),
            Duration.ofSeconds(10));
    managers.add(m);
    return m;
  }

  @Test
  void setPodStatusNeverBlocksOrThrowsWhileTheApiServerIsUnreachable() throws IOException {
    ApiStatusManager m = unreachable();
    m.start();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(TestPods.simple("uid-" + i, "p" + i, "app", "sidecar"));
    }

    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () -> {
          for (int round = 0; round < 20; round++) {
            for (Pod pod : pods) {
              m.setPodStatus(
                  pod, ApiStatusFixtures.running(pod, T0, "10.88.0.9", round % 2 == 0, round));
            }
          }
        });

    await().atMost(Duration.ofSeconds(10)).until(() -> m.stats().failures() >= 2);
    assertThat(m.healthy().ok()).as(m.healthy().message()).isTrue();
    assertThat(m.stats().writes()).isZero();
    assertThat(m.getPodStatus("uid-3"))
        .get()
        .satisfies(
            s -> assertThat(s.getContainerStatuses().get(0).getRestartCount()).isEqualTo(19));
    assertThat(m.stats().pending()).isEqualTo(10);

    m.removeOrphanedStatuses(Set.of("uid-1"));
    assertThat(m.getPodStatus("uid-3")).isEmpty();
    assertThat(m.getPodStatus("uid-1")).isPresent();
    assertThat(m.stats().pending()).isLessThanOrEqualTo(1);
  }

  @Test
  void aPatchRefusedForAnotherUidMeansThePodWasReplaced() {
    Status invalid =
        new StatusBuilder()
            .withCode(422)
            .withReason("Invalid")
            .withMessage(
                "Pod \"p1\" is invalid: metadata.uid: Invalid value: \"0000\": field is immutable")
            .build();
    Status podIps =
        new StatusBuilder()
            .withCode(422)
            .withReason("Invalid")
            .withMessage("Pod \"p1\" is invalid: status.podIPs: Invalid value: ...")
            .build();

    assertThat(ApiStatusWriter.isUidMismatch(new KubernetesClientException(invalid))).isTrue();
    assertThat(ApiStatusWriter.isUidMismatch(new KubernetesClientException(podIps))).isFalse();
  }

  @Test
  void healthReportsTheLifecycle() throws IOException {
    ApiStatusManager m = unreachable();
    assertThat(m.healthy().ok()).isFalse();
    assertThat(m.healthy().message()).contains("has not started");

    m.start();
    assertThat(m.healthy().ok()).isTrue();

    m.stop();
    assertThat(m.healthy().ok()).isFalse();
    assertThat(m.healthy().message()).contains("stopped");
  }
}
