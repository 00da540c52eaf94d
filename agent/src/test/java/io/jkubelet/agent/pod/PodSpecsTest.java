package io.jkubelet.agent.pod;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import org.junit.jupiter.api.Test;

class PodSpecsTest {
  private final Pod pod =
      TestPods.parse(
          """
          apiVersion: v1
          kind: Pod
          metadata: {name: p, namespace: default, uid: u1}
          spec:
            initContainers:
            - {name: init, image: 'jkubelet/busybox:1.35'}
            containers:
            - {name: app, image: 'jkubelet/busybox:1.35'}
          """);

  @Test
  void containersAndInitContainersAreNeverNull() {
    Pod bare = TestPods.simple("u", "p", "c");
    bare.getSpec().setInitContainers(null);
    assertThat(PodSpecs.initContainers(bare)).isEmpty();
    assertThat(PodSpecs.containers(bare)).extracting(Container::getName).containsExactly("c");
  }

  @Test
  void allContainersAreTheAppContainersThenTheInitContainers() {
    assertThat(PodSpecs.allContainers(pod))
        .extracting(Container::getName)
        .containsExactly("app", "init");
  }

  @Test
  void findsAnAppOrAnInitContainerByName() {
    assertThat(PodSpecs.find(pod, "init")).map(Container::getName).contains("init");
    assertThat(PodSpecs.find(pod, "app")).map(Container::getName).contains("app");
    assertThat(PodSpecs.find(pod, "none")).isEmpty();
  }
}
