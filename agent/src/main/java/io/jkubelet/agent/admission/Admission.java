package io.jkubelet.agent.admission;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodRequests;
import java.util.List;
import java.util.Optional;

/**
 * Whether the node can take a pod, as upstream's {@code GeneralPredicates} at admission: the pod
 * count against {@code maxPods}, then the cpu and memory requests against what is allocatable, then
 * its host ports against theirs ({@link HostPorts}), given the pods already admitted. A pure
 * function.
 */
final class Admission {
  private Admission() {}

  /** What the node offers: millicores, bytes, pods. */
  record Allocatable(long milliCpu, long memoryBytes, int pods) {}

  /**
   * A refusal: reason {@code OutOfpods}, {@code OutOfcpu}, {@code OutOfmemory} or {@code
   * NodePorts}, and why.
   */
  record Rejection(String reason, String message) {}

  static Optional<Rejection> admit(Pod pod, List<Pod> admitted, Allocatable node) {
    if (admitted.size() + 1 > node.pods()) {
      return Optional.of(rejection("pods", 1, admitted.size(), node.pods()));
    }
    long cpu = milliCpu(pod);
    long usedCpu = admitted.stream().mapToLong(Admission::milliCpu).sum();
    if (cpu > 0 && usedCpu + cpu > node.milliCpu()) {
      return Optional.of(rejection("cpu", cpu, usedCpu, node.milliCpu()));
    }
    long mem = memory(pod);
    long usedMem = admitted.stream().mapToLong(Admission::memory).sum();
    if (mem > 0 && usedMem + mem > node.memoryBytes()) {
      return Optional.of(rejection("memory", mem, usedMem, node.memoryBytes()));
    }
    if (HostPorts.conflict(pod, admitted)) {
      return Optional.of(
          new Rejection(HostPorts.REASON, "Predicate " + HostPorts.REASON + " failed"));
    }
    return Optional.empty();
  }

  private static Rejection rejection(String resource, long requested, long used, long capacity) {
    return new Rejection(
        "OutOf" + resource,
        String.format(
            "Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d",
            resource, requested, used, capacity));
  }

  /**
   * The pod's cpu request in millicores: upstream's {@code computePodResourceRequest}, the larger
   * of its containers' sum and any init container's, plus its overhead ({@link PodRequests}).
   */
  static long milliCpu(Pod pod) {
    return PodRequests.of(pod).milliRequest(PodRequests.CPU);
  }

  /** The pod's memory request in bytes, as {@link #milliCpu}. */
  static long memory(Pod pod) {
    return PodRequests.of(pod).request(PodRequests.MEMORY);
  }
}
