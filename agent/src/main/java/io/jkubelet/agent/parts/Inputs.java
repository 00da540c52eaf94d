package io.jkubelet.agent.parts;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.cm.NodeAllocatable;
import io.jkubelet.agent.export.EventPipeline;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.status.StatusManager;

/**
 * What the composition root made before the parts: the options, the dependencies, the engine as the
 * pods use it, the metrics and the event pipeline, the status manager, and the API's parts.
 *
 * @param statuses the status manager: local standalone, the API's in cluster mode
 * @param allocatable the node's allocatable, computed once: the admitter offers it, the Node's
 *     status subtracts its reservation from the capacity
 */
public record Inputs(
    KubeletOptions options,
    Dependencies deps,
    PodEngine engine,
    KubeletMetrics metrics,
    EventPipeline events,
    StatusManager statuses,
    NodeAllocatable allocatable,
    Cluster cluster) {

  /**
   * The API's parts.
   *
   * @param client the client of the API pod source, volumes' tokens and mirror pods; null
   *     standalone
   * @param mirrors mirror pods; null standalone
   * @param objects the secrets, configMaps and services the pods use
   */
  public record Cluster(KubernetesClient client, MirrorClient mirrors, PodObjects objects) {
    /** Standalone: no client, no mirror pods, no objects. */
    public static final Cluster NONE = new Cluster(null, null, PodObjects.NONE);
  }

  public KubernetesClient apiClient() {
    return cluster.client();
  }

  public MirrorClient mirrors() {
    return cluster.mirrors();
  }

  public PodObjects objects() {
    return cluster.objects();
  }

  public Runtime runtime() {
    return engine.runtime();
  }

  public ContainerManager containerManager() {
    return engine.cgroups();
  }

  public io.jkubelet.agent.timeline.PodTimelines timelines() {
    return engine.timelines();
  }

  public PodNetwork network() {
    return engine.network();
  }
}
