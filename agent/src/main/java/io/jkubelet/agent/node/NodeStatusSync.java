package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.node.NodeStatuses.Desired;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.util.ApiRequests;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.config.Durations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status half of the node heartbeat, as upstream's {@code tryUpdateNodeStatus}: GETs the Node
 * (from the API server's watch cache, as upstream's first try), computes its status against what
 * the API holds, and PATCHes it when it changed or when {@code statusReportFrequency} has passed
 * since the last report.
 *
 * <p>Reading the Node on every sync is what lets the agent see that the Node was deleted (the
 * result is {@link Result.Gone}) and that a controller changed a condition it owns (corrected at
 * once rather than five minutes later).
 *
 * <p>Node events are recorded after the write that made them true succeeded ({@link #written}), so
 * a failed PATCH does not leave an event for a status nobody saw.
 *
 * <p>Not thread-safe: confined to the node-status thread (or a test's thread), except {@link
 * #lastReported()}, which any thread may read.
 */
final class NodeStatusSync {
  private static final Logger log = LoggerFactory.getLogger(NodeStatusSync.class);

  /** What one {@link #sync} did. */
  sealed interface Result {
    /** The status is in the API server (patched or unchanged); {@code uid} is the Node's. */
    record Synced(String uid) implements Result {}

    /**
     * The Node could not be read or patched; {@code error} says why. {@code uid} is the Node's when
     * it was read, else the one the caller knew.
     */
    record Failed(String error, String uid) implements Result {}

    /** The Node is gone from the API server and must be registered again. */
    record Gone() implements Result {}
  }

  private final NodeOptions options;
  private final KubernetesClient client;
  private final NodeInfo machine;
  private final Supplier<String> runtimeVersion;
  private final Supplier<List<ImageSummary>> images;
  private final Supplier<Health> readiness;
  private final EventRecorder recorder;
  private final NodeResources resources;
  private final String name;

  private Instant lastReportTime;
  private boolean registrationEventsPending = true;
  private String knownRuntimeVersion;
  private boolean runtimeVersionFailing;
  private List<ImageSummary> knownImages = List.of();
  private boolean imagesFailing;
  private int failures;
  private Set<String> lastPressure;

  private volatile Node lastReported;

  NodeStatusSync(
      NodeOptions options,
      KubernetesClient client,
      NodeStatusManager.Sources sources,
      EventRecorder recorder) {
    this.resources = sources.resources();
    this.options = Objects.requireNonNull(options, "options");
    this.client = Objects.requireNonNull(client, "client");
    this.machine = sources.machine();
    this.runtimeVersion = sources.runtimeVersion();
    this.images = sources.images();
    this.readiness = sources.readiness();
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.name = options.nodeName();
  }

  /** The Node last written (created or status-patched), or null. Any thread. */
  Node lastReported() {
    return lastReported;
  }

  /**
   * The status this node has now, computed against {@code onServer} (null when there is none, as on
   * registration). Never throws for the runtime or the readiness check failing.
   */
  Desired desired(NodeStatus onServer, Instant now) {
    lastPressure = pressure();
    Desired d =
        NodeStatuses.desired(
            options,
            machine,
            runtimeVersion(onServer),
            health(),
            onServer == null ? null : onServer.getConditions(),
            now,
            resources.reservation(),
            lastPressure);
    d.status().setImages(NodeStatuses.images(images()));
    ExtendedResources.carry(onServer, d.status());
    return d;
  }

  /** The runtime's images; when they cannot be listed, the last known ones. */
  private List<ImageSummary> images() {
    try {
      List<ImageSummary> now = Objects.requireNonNull(images.get(), "images are null");
      if (imagesFailing) {
        log.info("NodeStatus: the container runtime lists its images again");
        imagesFailing = false;
      }
      knownImages = now;
    } catch (RuntimeException e) {
      if (!imagesFailing) {
        log.warn(
            "NodeStatus: cannot list the container runtime's images, reporting the last known: {}",
            Errors.describeApi(e));
        imagesFailing = true;
      }
    }
    return knownImages;
  }

  /**
   * One status sync at {@code now}. Never throws for API failures: they are logged (at error when
   * retrying cannot help) and returned.
   *
   * <p>On {@link Result.Gone} the report time is forgotten, so the Node registered again is
   * reported in full.
   *
   * @param knownUid the uid of the Node as the caller last knew it
   */
  Result sync(Instant now, String knownUid) {
    Node current;
    try {
      // As upstream's first try, from the API server's watch cache: no read of etcd. After a
      // failure, and when the cache has no such Node (just registered, or deleted), from etcd.
      current = failures == 0 ? ApiRequests.getCached(client, "nodes", name, Node.class) : null;
      if (current == null) {
        current = client.nodes().withName(name).get();
      }
    } catch (RuntimeException e) {
      return failed(e, knownUid);
    }
    return current == null ? gone() : sync(now, current);
  }

  /** One status sync at {@code now} against {@code current}, the Node as just read. */
  Result sync(Instant now, Node current) {
    Node reported = lastReported;
    if (reported != null && !Objects.equals(reported.getSpec(), current.getSpec())) {
      // The spec as last read (the controller manager sets spec.podCIDRs after registration),
      // even when no status is written this round.
      lastReported = new NodeBuilder(reported).withSpec(current.getSpec()).build();
    }
    NodeStatus onServer = current.getStatus();
    Desired desired = desired(onServer, now);
    List<String> stale = ExtendedResources.stale(onServer);
    boolean changed = NodeStatuses.changed(onServer, desired.status()) || !stale.isEmpty();
    String uid = current.getMetadata().getUid();
    Result synced = new Result.Synced(uid);
    if (!NodeStatuses.shouldReport(
        changed, lastReportTime, now, options.heartbeat().statusReportFrequency())) {
      return ok(synced);
    }
    Node patched;
    try {
      String patch =
          client
              .getKubernetesSerialization()
              .asJson(NodeStatuses.statusPatch(desired.status(), stale));
      // On the Node as read: fabric8 reads it again before a patch by name alone.
      patched =
          client
              .nodes()
              .resource(current)
              .subresource("status")
              .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    } catch (RuntimeException e) {
      return Errors.isNotFound(e) ? gone() : failed(e, uid);
    }
    log.debug("NodeStatus: reported the status of node {} (changed: {})", name, changed);
    ok(synced);
    written(patched, desired, now);
    return synced;
  }

  /**
   * Records what was written: the server's metadata and spec with the status this agent sent. Then
   * records the events of the conditions that changed with that write, and the registration events
   * when this is the first write since the agent started.
   */
  void written(Node fromServer, Desired sent, Instant now) {
    lastReportTime = now;
    lastReported = new NodeBuilder(fromServer).withStatus(sent.status()).build();
    recordEvents(sent);
  }

  private Result ok(Result synced) {
    if (failures > 0) {
      log.info(
          "NodeStatus: syncing the status of node {} works again after {} failed attempts",
          name,
          failures);
      failures = 0;
    }
    return synced;
  }

  private Result gone() {
    log.warn(
        options.registration().register()
            ? "NodeStatus: node {} is gone from the API server; registering it again"
            : "NodeStatus: node {} is gone from the API server; registerNode is false: waiting for"
                + " it to be created again",
        name);
    lastReportTime = null;
    return new Result.Gone();
  }

  private Result failed(RuntimeException e, String uid) {
    failures++;
    String error = Errors.describeApi(e);
    String message =
        "NodeStatus: cannot sync the status of node {} ({} failed in a row): {}; retrying in {}";
    Object[] args = {
      name, failures, error, Durations.format(options.heartbeat().statusUpdateFrequency())
    };
    if (Errors.isRefused(e)) {
      log.error(message, args); // retrying will not help until someone fixes it
    } else {
      log.warn(message, args);
    }
    return new Result.Failed(error, uid);
  }

  private void recordEvents(Desired written) {
    List<String> reasons = new ArrayList<>();
    if (registrationEventsPending) {
      reasons.addAll(NodeStatuses.REGISTRATION_EVENTS);
      registrationEventsPending = false;
    }
    for (String r : written.events()) {
      if (!reasons.contains(r)) {
        reasons.add(r);
      }
    }
    for (String reason : reasons) {
      recorder.eventf(
          Refs.node(name), EventType.Normal, reason, "Node %s status is now: %s", name, reason);
      if (reason.equals(Reasons.NODE_NOT_READY)) {
        log.info(
            "NodeStatus: node {} is not ready: {}",
            name,
            NodeStatuses.find(written.status().getConditions(), NodeStatuses.READY).getMessage());
      } else if (reason.equals(Reasons.NODE_READY)) {
        log.info("NodeStatus: node {} is ready", name);
      }
    }
  }

  /** The runtime's version; when it cannot be had, the last known one (or the server's). */
  private String runtimeVersion(NodeStatus onServer) {
    try {
      String v = Objects.requireNonNull(runtimeVersion.get(), "runtime version is null");
      if (runtimeVersionFailing) {
        log.info("NodeStatus: container runtime version is {} again", v);
        runtimeVersionFailing = false;
      }
      knownRuntimeVersion = v;
      return v;
    } catch (RuntimeException e) {
      String kept = knownRuntimeVersion;
      if (kept == null && onServer != null && onServer.getNodeInfo() != null) {
        kept = onServer.getNodeInfo().getContainerRuntimeVersion();
      }
      kept = kept == null ? "" : kept;
      if (!runtimeVersionFailing) {
        log.warn(
            "NodeStatus: cannot get the container runtime version, reporting \"{}\": {}",
            kept,
            Errors.describeApi(e));
        runtimeVersionFailing = true;
      }
      return kept;
    }
  }

  /**
   * Whether the pressure conditions that are True now differ from those the last status was
   * computed with; false before the first. A round whose write failed is not brought forward again:
   * it is retried at the next period, as any failed write.
   */
  boolean pressureChanged() {
    Set<String> last = lastPressure;
    return last != null && !last.equals(pressure());
  }

  /** The pressure conditions that are True; none when asking fails. */
  private Set<String> pressure() {
    try {
      return resources.pressure().get();
    } catch (RuntimeException e) {
      log.warn("NodeStatus: cannot read the pressure conditions: {}", e.toString());
      return Set.of();
    }
  }

  /** The agent's readiness; a check that fails or throws is not ready, with why. */
  Health health() {
    try {
      Health h = readiness.get();
      return h == null ? Health.failing("readiness is unknown") : h;
    } catch (RuntimeException e) {
      return Health.failing("readiness check failed: " + Errors.describeApi(e));
    }
  }
}
