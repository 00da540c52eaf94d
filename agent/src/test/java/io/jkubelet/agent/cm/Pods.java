package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.TestPods;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Upstream's test vocabulary ({@code getResourceList(cpu, memory)}) over the shared {@link
 * TestPods}.
 */
final class Pods {
  private Pods() {}

  /** A resource list of cpu and memory; "" leaves one out. */
  static Map<String, Quantity> resources(String cpu, String memory) {
    Map<String, Quantity> m = new HashMap<>();
    if (!cpu.isEmpty()) {
      m.put("cpu", new Quantity(cpu));
    }
    if (!memory.isEmpty()) {
      m.put("memory", new Quantity(memory));
    }
    return m;
  }

  static Container container(Map<String, Quantity> requests, Map<String, Quantity> limits) {
    return TestPods.container("c", requests, limits);
  }

  /** A container requesting and limiting cpu and memory; "" leaves a value out. */
  static Container container(String reqCpu, String reqMem, String limCpu, String limMem) {
    return container(resources(reqCpu, reqMem), resources(limCpu, limMem));
  }

  static Pod pod(String uid, Container... containers) {
    return pod(uid, List.of(containers), List.of());
  }

  static Pod pod(String uid, List<Container> containers, List<Container> inits) {
    return TestPods.builder("default", "p-" + uid, uid)
        .editSpec()
        .withContainers(containers)
        .withInitContainers(inits)
        .endSpec()
        .build();
  }
}
