package io.jkubelet.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.certificates.CertificateManager;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.status.StatusManager;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import java.util.List;
import java.util.function.Supplier;

/**
 * What an {@link Agent} is built from: everything read or connected before (options, host facts,
 * the runtime client, the API clients), so that building does no I/O.
 *
 * @param host the node's IP and machine facts, read before building
 * @param statuses the status manager: local in standalone mode, the API writer in cluster mode
 * @param cluster null in standalone mode
 * @param network the pods' network; {@code runtime} is already {@link PodNetwork#wrap wrapped} by
 *     it
 * @param containerManager the pods' cgroups, not started: the agent starts it before the first pod
 *     sync and stops it last; {@link ContainerManager#NONE} without {@code cgroupsPerQOS}
 */
public record Setup(
    KubeletOptions options,
    HostFacts host,
    Runtime runtime,
    EventRecorder recorder,
    StatusManager statuses,
    Time time,
    Setup.Cluster cluster,
    Setup.EventPipeline events,
    PodNetwork network,
    ContainerManager containerManager) {

  /** A setup whose pods get no cgroups of jkubelet's. */
  public Setup(
      KubeletOptions options,
      HostFacts host,
      Runtime runtime,
      EventRecorder recorder,
      StatusManager statuses,
      Time time,
      Setup.Cluster cluster,
      Setup.EventPipeline events,
      PodNetwork network) {
    this(
        options,
        host,
        runtime,
        recorder,
        statuses,
        time,
        cluster,
        events,
        network,
        ContainerManager.NONE);
  }

  /** A setup on Docker's own bridge network. */
  public Setup(
      KubeletOptions options,
      HostFacts host,
      Runtime runtime,
      EventRecorder recorder,
      StatusManager statuses,
      Time time,
      Setup.Cluster cluster,
      Setup.EventPipeline events) {
    this(options, host, runtime, recorder, statuses, time, cluster, events, PodNetwork.NONE);
  }

  /**
   * What cluster mode adds to standalone mode: a client for the pods bound to this node, the node's
   * registration and heartbeats, and the mirror pods of static pods.
   *
   * @param client the client of the API source and mirror pods
   * @param node registration, node status and Lease, on their own client
   * @param mirrors creates and deletes mirror pods
   * @param objects the secrets, configMaps and services of the node's pods
   * @param clientCertificate the health of the node's client certificate (its lifecycle is the
   *     command's, which starts it before any client is built)
   * @param servingCertificate the kubelet API's certificate from the CSR API ({@code
   *     serverTLSBootstrap}), started and stopped with the API; null without it
   */
  public record Cluster(
      KubernetesClient client,
      Lifecycle node,
      MirrorClient mirrors,
      PodObjects objects,
      Supplier<Lifecycle.Health> clientCertificate,
      CertificateManager servingCertificate) {
    /** Without a client certificate to watch. */
    public Cluster(
        KubernetesClient client, Lifecycle node, MirrorClient mirrors, PodObjects objects) {
      this(client, node, mirrors, objects, () -> Lifecycle.Health.OK, null);
    }
  }

  /**
   * The event pipeline behind the recorder: its broadcaster (started first, stopped last, so no
   * event of the agent's own start or stop is lost) and the local store that {@code /events} serves
   * (an empty one where the read-only port is off and no store is kept).
   */
  public record EventPipeline(Lifecycle broadcaster, ReadOnlyServer.Events store) {
    /** No pipeline: for tests that give a recorder of their own. */
    public static final EventPipeline NONE =
        new EventPipeline(
            new Lifecycle() {
              public void start() {}

              public void stop() {}

              public Health healthy() {
                return Health.OK;
              }
            },
            (ns, pod, uid) -> List.of());
  }
}
