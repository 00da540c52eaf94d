package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.testing.PlatformThreads;
import io.jkubelet.agent.util.Time;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The engine's event stream wakes the PLEG when this node's containers start or die. */
@Timeout(60)
class DockerEventsTest {
  private final String node = "events-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
          .scopedTo(Map.of(Labels.NODE, node));
  private final DockerClient docker = io.jkubelet.agent.e2e.TestDockerAccess.client();

  @AfterEach
  void cleanUp() {
    for (var c :
        docker
            .listContainersCmd()
            .withShowAll(true)
            .withLabelFilter(Map.of(Labels.NODE, node))
            .exec()) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
    for (var c :
        docker
            .listContainersCmd()
            .withShowAll(true)
            .withLabelFilter(Map.of("io.jkubelet.test", node))
            .exec()) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
    runtime.close();
  }

  @Test
  void startsAndDeathsOfThisNodesContainersAreReportedButNotOthers() throws Exception {
    AtomicInteger changes = new AtomicInteger();
    try (AutoCloseable watch = runtime.watchContainerEvents(changes::incrementAndGet)) {
      // Another node's container: no event for us.
      String other =
          docker
              .createContainerCmd("jkubelet/busybox:1.35")
              .withCmd("true")
              .withLabels(Map.of("io.jkubelet.test", node, Labels.NODE, "someone-else"))
              .exec()
              .getId();
      docker.startContainerCmd(other).exec();
      String ours =
          docker
              .createContainerCmd("jkubelet/busybox:1.35")
              .withCmd("sh", "-c", "sleep 0.3")
              .withLabels(Map.of(Labels.NODE, node))
              .exec()
              .getId();
      docker.startContainerCmd(ours).exec();
      // start and die of ours only
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(changes.get()).isEqualTo(2));
      // The stream is read on the watch's virtual thread: docker-java starts no reader of its own.
      assertThat(PlatformThreads.startingWith("docker-java-stream")).isEmpty();
    }
  }
}
