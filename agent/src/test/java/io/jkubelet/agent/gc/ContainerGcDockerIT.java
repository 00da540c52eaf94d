package io.jkubelet.agent.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.kuberuntime.Configs;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.runtime.docker.TestDockerClient;
import io.jkubelet.agent.util.Time;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Container GC on the real engine: a pod whose container died four times keeps exactly {@code
 * --maximum-dead-containers-per-container} (2) of them, the newest; {@code
 * deleteAllUnusedContainers} then removes the rest and leaves the running sandbox. Every container
 * carries this test's node label ({@link Labels#NODE}), the runtime lists only those, and only
 * those are removed afterwards.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ContainerGcDockerIT {
  private final String node = "containergc-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
          .scopedTo(Map.of(Labels.NODE, node));
  private final DockerClient docker = TestDockerClient.connect();

  @AfterEach
  void removeThisTestsContainers() throws Exception {
    try {
      TestDockerClient.removeLabelled(docker, Labels.NODE, node);
    } finally {
      runtime.close();
      docker.close();
    }
  }

  /** Every pod is desired and idle. */
  private static final PodStates EXISTING =
      new PodStates() {
        public boolean deleted(String uid) {
          return false;
        }

        public boolean terminated(String uid) {
          return false;
        }

        public boolean busy(String uid) {
          return false;
        }

        public boolean allSourcesReady() {
          return true;
        }
      };

  @Test
  void aContainerKeepsExactlyTheNewestNDeadInstancesAndDeleteAllLeavesOnlyWhatRuns()
      throws Exception {
    Pod pod =
        TestPods.parse(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: gc, namespace: default, uid: "
                + node
                + "}\nspec:\n  nodeName: "
                + node
                + "\n  containers:\n  - {name: a, image: jkubelet/busybox:1.35, command: [sh, -c,"
                + " 'exit 1']}\n");
    String sandbox =
        runtime.runPodSandbox(Configs.sandbox(pod, 0, "jkubelet/pause:3.2", 0, null, "gc", ""));
    List<String> dead = new ArrayList<>();
    for (int restart = 0; restart < 4; restart++) {
      String id =
          runtime.createContainer(
              sandbox,
              Configs.container(
                  pod,
                  pod.getSpec().getContainers().get(0),
                  false,
                  Configs.Instance.of(sandbox, restart, Map.of(), List.of())));
      runtime.startContainer(id);
      dead.add(id);
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                runtime.listContainers().stream()
                    .filter(c -> !c.sandbox())
                    .allMatch(c -> c.state() == ContainerState.EXITED));
    ContainerGc gc =
        new RealContainerGc(
            new RealContainerGc.Deps(
                runtime,
                null,
                new ContainerGcPolicy(Duration.ZERO, 2, -1),
                EXISTING,
                Clock.systemUTC(),
                io.jkubelet.agent.events.EventRecorder.NOOP,
                io.jkubelet.agent.events.Refs.node(node)));

    gc.garbageCollect();

    assertThat(appContainers()).containsExactlyInAnyOrder(dead.get(2), dead.get(3));
    assertThat(sandboxes()).containsExactly(sandbox);
    assertThat(gc.stats()).isEqualTo(new ContainerGc.Stats(2, 0, 0));

    gc.deleteAllUnusedContainers();

    assertThat(appContainers()).isEmpty();
    assertThat(sandboxes()).containsExactly(sandbox);
    assertThat(gc.stats()).isEqualTo(new ContainerGc.Stats(4, 0, 0));
  }

  private List<String> appContainers() {
    return ofType(Labels.TYPE_CONTAINER);
  }

  private List<String> sandboxes() {
    return ofType(Labels.TYPE_SANDBOX);
  }

  private List<String> ofType(String type) {
    return docker
        .listContainersCmd()
        .withShowAll(true)
        .withLabelFilter(Map.of(Labels.NODE, node, Labels.DOCKER_TYPE, type))
        .exec()
        .stream()
        .map(Container::getId)
        .toList();
  }
}
