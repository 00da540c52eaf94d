package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Records;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Keeps this node's Node object and Lease in the API server, as upstream's {@code
 * kubelet_node_status.go} and {@code nodelease} do.
 *
 * <p>{@link #start()} registers the Node, retrying with backoff, and then, every {@code
 * statusUpdateFrequency}, renews the Lease and computes the status, which it PATCHes only when it
 * changed or when {@code statusReportFrequency} has passed; a pressure condition that changes is
 * written within a second, not at the next period. A Node deleted while running is registered
 * again. The API server being down is logged and retried, never thrown.
 *
 * <p>{@link #healthy()} fails when neither a status sync nor a Lease renewal has succeeded for
 * three update periods.
 */
public interface NodeStatusManager extends Lifecycle {

  /**
   * The Node last written to the API server (created or status-patched), if any, with its spec as
   * last read (the pod CIDRs that the controller manager sets after registration).
   */
  Optional<Node> lastReported();

  /** The Node's {@code spec.podCIDRs} (or its one {@code podCIDR}) as last reported; or none. */
  default List<String> podCidrs() {
    return lastReported()
        .map(Node::getSpec)
        .map(
            spec ->
                spec.getPodCIDRs() != null && !spec.getPodCIDRs().isEmpty()
                    ? spec.getPodCIDRs()
                    : spec.getPodCIDR() == null ? List.<String>of() : List.of(spec.getPodCIDR()))
        .orElse(List.of());
  }

  /**
   * What the Node's status is computed from.
   *
   * @param machine the host, from {@link HostFacts}
   * @param runtimeVersion e.g. {@code docker://20.10.24}; may throw while the runtime is down, and
   *     the last known version is then kept
   * @param images the runtime's images, for {@code status.images}; may throw while the runtime is
   *     down, and the last known list is then kept
   * @param readiness the health of the runtime, PLEG and sync loop; not OK makes the node Ready
   *     False with its message
   * @param resources allocatable's reservation and the pressure conditions; {@link
   *     NodeResources#NONE} for none
   */
  record Sources(
      NodeInfo machine,
      Supplier<String> runtimeVersion,
      Supplier<List<ImageSummary>> images,
      Supplier<Health> readiness,
      NodeResources resources) {
    public Sources {
      Records.requireNonNull(Sources.class, machine, runtimeVersion, images, readiness, resources);
    }
  }

  /**
   * A manager that starts nothing until {@link #start()}.
   *
   * @param client a client for heartbeats only, e.g. from {@link HeartbeatClient#create}, so that a
   *     busy main client never delays them; the caller closes it
   * @param recorder receives the node events (NodeReady, NodeHasSufficientMemory, ...)
   */
  static NodeStatusManager create(
      NodeOptions options,
      KubernetesClient client,
      Time time,
      Sources sources,
      EventRecorder recorder) {
    return new ApiNodeStatusManager(options, client, time, sources, recorder);
  }
}
