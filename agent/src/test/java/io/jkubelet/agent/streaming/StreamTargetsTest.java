package io.jkubelet.agent.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A streaming request's container and sandbox are found first in what the pod cache last saw of the
 * pod, as upstream's runtime cache, and in the runtime's listing of the pod when the cache has not
 * seen them running.
 */
class StreamTargetsTest {
  private final TestStreamingServer node;
  private final Map<String, PodStatus> seen = new HashMap<>();
  private final StreamTargets targets;
  private final Pod web;
  private final PodRef ref = new PodRef(TestStreamingServer.UID, "web", "default");

  StreamTargetsTest() throws InterruptedException {
    node = new TestStreamingServer();
    web = node.pods.get(0);
    targets =
        new StreamTargets(
            () -> node.pods,
            p -> Optional.empty(),
            uid -> Optional.ofNullable(seen.get(uid)),
            node.runtime);
  }

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void whatTheCacheSawRunningIsUsedWithoutListingThePod() {
    seen.put(TestStreamingServer.UID, node.runtime.podStatus(ref));
    node.runtime.clearCalls();
    assertThat(targets.runningContainer(web, "app")).contains(node.containerId);
    assertThat(targets.runningSandbox(web)).contains(node.sandboxId);
    assertThat(node.runtime.calls()).isEmpty();
  }

  @Test
  void withoutTheCacheThePodIsListed() {
    node.runtime.clearCalls();
    assertThat(targets.runningContainer(web, "app")).contains(node.containerId);
    assertThat(targets.runningContainer(web, "other")).isEmpty();
    assertThat(targets.runningSandbox(web)).contains(node.sandboxId);
    assertThat(node.runtime.calls()).isNotEmpty();
  }

  @Test
  void aContainerTheCacheSawExitedIsLookedForInTheRuntime() {
    node.runtime.stopContainer(node.containerId, Duration.ZERO);
    seen.put(TestStreamingServer.UID, node.runtime.podStatus(ref));
    assertThat(targets.runningContainer(web, "app")).isEmpty();
    node.runtime.startContainer(node.containerId); // started again since the cache saw it
    assertThat(targets.runningContainer(web, "app")).contains(node.containerId);
  }
}
