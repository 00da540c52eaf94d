package io.jkubelet.agent.parts;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.client.ApiClients;
import io.jkubelet.agent.client.ContentType;
import io.jkubelet.agent.client.RateLimit;
import io.jkubelet.agent.events.ApiEventSink;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.StatusCollector;
import io.jkubelet.agent.node.HeartbeatClient;
import io.jkubelet.agent.node.NodeOptions;
import io.jkubelet.agent.node.NodeResources;
import io.jkubelet.agent.node.NodeStatusManager;
import io.jkubelet.agent.objects.WatchPodObjects;
import io.jkubelet.agent.pod.MirrorClient;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.status.ApiStatusManager;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's half of the agent in cluster mode, as the composition root builds it: the pods'
 * requests on upstream's kube-api budget (the API pod source, mirror pods, the pods' objects and
 * the status manager), events to the API server on a budget of their own, and the Node's
 * registration, status and Lease on a client of its own. Builds only, and in two steps, because the
 * pods' parts and the node read each other: {@link #create} before the {@link PodParts} (which take
 * {@link #statuses()} and {@link #cluster()}), {@link #node} after them. Thread-safe once built.
 */
public final class NodeParts {
  private static final Logger log = LoggerFactory.getLogger(NodeParts.class);

  private final KubeletOptions options;
  private final ApiClients clients;
  private final ApiStatusManager statuses;
  private final Inputs.Cluster cluster;
  private volatile NodeStatusManager node;

  private NodeParts(
      KubeletOptions options, ApiClients clients, ApiClients kube, ApiStatusManager statuses) {
    this.options = options;
    this.clients = clients;
    this.statuses = statuses;
    KubernetesClient pods = kube.newClient();
    this.cluster =
        new Inputs.Cluster(
            pods,
            new MirrorClient(pods, options.nodeName(), this::nodeUid),
            WatchPodObjects.create(kube.newClient()));
  }

  /**
   * The API's parts before the pods' parts. The pods', statuses', mirror pods' and objects'
   * requests share upstream's kube-api limit; the events and the heartbeat have their own.
   *
   * @param parts the pods' parts, built after these: the status manager reads them
   */
  public static NodeParts create(
      KubeletOptions options,
      Dependencies deps,
      ApiClients clients,
      KubeletMetrics metrics,
      EventBroadcaster broadcaster,
      Supplier<PodParts> parts) {
    var config = options.config();
    RateLimit limit =
        RateLimit.kubeApi(config.client().kubeAPIQPS(), config.client().kubeAPIBurst());
    ApiClients kube = clients.limited("kube-api", limit, deps.time());
    ContentType.logUsed(config.client().contentType());
    ApiStatusManager statuses =
        new ApiStatusManager(
            kube.newClient(),
            deps.time().clock(),
            (int) limit.qps(),
            limit.burst(),
            pod -> parts.get().reclaimed.test(pod),
            uid -> parts.get().podManager.apiObject(uid),
            ApiStatusManager.SYNC_PERIOD);
    if (deps.apiEvents()) {
      metrics.register(apiEvents(options, deps, clients, broadcaster, metrics));
    } else {
      log.info(
          "Events: logged, not sent to the API server (as kubemark's hollow kubelet, which has no"
              + " event client)");
    }
    metrics.register(new StatusCollector(statuses::stats));
    return new NodeParts(options, clients, kube, statuses);
  }

  /** The status manager: the API's. */
  public ApiStatusManager statuses() {
    return statuses;
  }

  /** The API's parts the pods use. */
  public Inputs.Cluster cluster() {
    return cluster;
  }

  /**
   * Registration, node status and Lease, on a client of its own, once the pods' parts are built.
   *
   * @param healthy the node's readiness (the root's)
   */
  public NodeStatusManager node(Inputs in, PodParts parts, Supplier<Health> healthy) {
    var deps = in.deps();
    NodeOptions nodeOptions =
        NodeOptions.of(
            options.config(),
            options.nodeName(),
            deps.host().nodeIp(),
            new NodeOptions.Registration(
                options.node().labels(),
                options.node().taints(),
                options.config().node().providerID(),
                options.config().node().registerNode()),
            options.rootDir());
    Runtime runtime = in.runtime();
    node =
        NodeStatusManager.create(
            nodeOptions,
            HeartbeatClient.create(clients.base(), nodeOptions, clients.customizer()),
            deps.time(),
            new NodeStatusManager.Sources(
                deps.host().machine(),
                () -> runtime.type() + "://" + runtime.version(),
                runtime::listImages,
                healthy,
                new NodeResources(
                    in.allocatable().reservationByResource(), parts.eviction::nodeConditions)),
            in.events().recorder());
    in.network().podCidrsFrom(node::podCidrs);
    return node;
  }

  /** Events to the API server, on a client and budget of their own; what the events count. */
  private static EventCollector apiEvents(
      KubeletOptions options,
      Dependencies deps,
      ApiClients clients,
      EventBroadcaster broadcaster,
      KubeletMetrics metrics) {
    var config = options.config();
    ApiEventSink sink =
        ApiEventSink.create(
            clients.newClient(),
            deps.time().clock(),
            deps.time().sleeper(),
            CorrelatorOptions.defaults()
                .withSpamFilter(
                    config.events().eventSpamRefillPeriod(), config.events().eventSpamBurst()),
            config.events().eventRecordQPS(),
            config.events().eventBurst());
    broadcaster.addWatcher("api", sink);
    metrics.caches().addCorrelator("api", sink::correlatorCaches);
    return new EventCollector(
        broadcaster::recorded, broadcaster::dropped, sink::correlatorStats, sink::counts);
  }

  /** The Node's UID once it is registered, for mirror pods' owner reference; else "". */
  private String nodeUid() {
    NodeStatusManager n = node;
    return n == null ? "" : n.lastReported().map(r -> r.getMetadata().getUid()).orElse("");
  }
}
