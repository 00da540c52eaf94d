package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodRequests;
import java.math.BigDecimal;
import java.util.Map;

/**
 * The {@code oom_score_adj} of a pod's processes, as upstream's {@code pkg/kubelet/qos/policy.go}
 * (v1.20) and dockershim's sandbox. Pure functions.
 *
 * <p>NOTE: some hosts (rootless or user-namespaced Docker, some sandboxes) refuse a negative value.
 * The runtime already falls back to 0 for a sandbox there ({@code runtime.docker.Sandboxes}, and
 * {@code podInfraOomScoreAdj}); a container given a negative value by this policy needs the same
 * fallback when the policy is wired into container creation.
 */
public final class OomScoreAdj {
  /** The kubelet's own, and kube-proxy's. */
  public static final int KUBELET = -999;

  /** dockershim's pause container ({@code defaultSandboxOOMAdj}). */
  public static final int SANDBOX = -998;

  /** Guaranteed and critical pods: killed last. */
  public static final int GUARANTEED = -997;

  /** BestEffort pods: killed first. */
  public static final int BEST_EFFORT = 1000;

  /** {@code scheduling.SystemCriticalPriority}: twice the highest user-definable priority. */
  public static final int SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

  static final String CONFIG_SOURCE = "kubernetes.io/config.source";
  static final String CONFIG_MIRROR = "kubernetes.io/config.mirror";

  private OomScoreAdj() {}

  /**
   * A container's adjustment, as upstream's {@code GetContainerOOMScoreAdjust}: -997 for critical
   * and Guaranteed pods, 1000 for BestEffort; for Burstable, {@code 1000 - 1000 * memoryRequest /
   * memoryCapacity}, at least 3 (above a Guaranteed pod using all memory) and at most 999 (below
   * BestEffort). The memory request is the container's own, as its spec gives it.
   *
   * @param memoryCapacity the node's memory in bytes; must be positive
   */
  public static int container(Pod pod, Container container, long memoryCapacity) {
    if (memoryCapacity <= 0) {
      throw new IllegalArgumentException("memoryCapacity must be positive, got " + memoryCapacity);
    }
    if (critical(pod)) {
      return GUARANTEED;
    }
    switch (QosClass.of(pod)) {
      case GUARANTEED -> {
        return GUARANTEED;
      }
      case BEST_EFFORT -> {
        return BEST_EFFORT;
      }
      case BURSTABLE -> {}
    }
    BigDecimal request = PodRequests.specRequests(container).get(PodRequests.MEMORY);
    long memoryRequest = request == null ? 0 : PodRequests.value(request);
    long adj = 1000 - (1000 * memoryRequest) / memoryCapacity;
    if (adj < 1000 + GUARANTEED) {
      return 1000 + GUARANTEED;
    }
    if (adj == BEST_EFFORT) {
      return BEST_EFFORT - 1;
    }
    return (int) adj;
  }

  /**
   * Upstream's {@code IsCriticalPod}: a static pod (its {@code config.source} is not {@code api}),
   * a mirror pod, or a priority of at least {@link #SYSTEM_CRITICAL_PRIORITY}.
   */
  public static boolean critical(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (annotations != null) {
      String source = annotations.get(CONFIG_SOURCE);
      if (source != null && !source.equals("api")) {
        return true;
      }
      if (annotations.containsKey(CONFIG_MIRROR)) {
        return true;
      }
    }
    Integer priority = pod.getSpec().getPriority();
    return priority != null && priority >= SYSTEM_CRITICAL_PRIORITY;
  }
}
