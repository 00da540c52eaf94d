package io.jkubelet.agent.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.TestPods;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionTest {
  private static final Admission.Allocatable NODE =
      new Admission.Allocatable(2000, 1024L * 1024 * 1024, 3);

  private static Pod pod(String uid, String cpu, String memory) {
    Pod p = TestPods.simple(uid, "p" + uid, "c");
    var requests = new java.util.HashMap<String, Quantity>();
    if (cpu != null) {
      requests.put("cpu", new Quantity(cpu));
    }
    if (memory != null) {
      requests.put("memory", new Quantity(memory));
    }
    p.getSpec().getContainers().get(0).getResources().setRequests(requests);
    return p;
  }

  @Test
  void admitsWhatFits() {
    assertThat(Admission.admit(pod("a", "500m", "256Mi"), List.of(pod("b", "1", "512Mi")), NODE))
        .isEmpty();
  }

  @Test
  void rejectsBeyondMaxPods() {
    var r =
        Admission.admit(
            pod("d", null, null),
            List.of(pod("a", null, null), pod("b", null, null), pod("c", null, null)),
            NODE);
    assertThat(r)
        .hasValueSatisfying(
            x -> {
              assertThat(x.reason()).isEqualTo("OutOfpods");
              assertThat(x.message())
                  .isEqualTo(
                      "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3");
            });
  }

  @Test
  void rejectsCpuAndMemoryBeyondAllocatableWithUpstreamMessages() {
    assertThat(Admission.admit(pod("a", "1500m", null), List.of(pod("b", "600m", null)), NODE))
        .hasValueSatisfying(
            x ->
                assertThat(x.message())
                    .isEqualTo(
                        "Node didn't have enough resource: cpu, requested: 1500, used: 600, capacity: 2000"));
    assertThat(Admission.admit(pod("a", null, "1Gi"), List.of(pod("b", null, "1Mi")), NODE))
        .hasValueSatisfying(x -> assertThat(x.reason()).isEqualTo("OutOfmemory"));
  }

  @Test
  void anInitContainerCountsWhenItAsksForMoreThanTheApps() {
    Pod p =
        TestPods.parse(
            """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: default, uid: u}
        spec:
          initContainers: [{name: i, image: x, resources: {requests: {cpu: '3'}}}]
          containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
        """);
    assertThat(Admission.milliCpu(p)).isEqualTo(3000);
  }
}
