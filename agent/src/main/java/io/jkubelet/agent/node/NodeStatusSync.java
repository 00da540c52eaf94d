package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.node.NodeStatuses.Desired;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node status, as upstream's {@code tryUpdateNodeStatus}: each sync GETs the Node, computes the
 * conditions against what the API holds, and PATCHes the status when it changed or when {@code
 * statusReportFrequency} has passed. Reading the Node each time is what lets the agent see that it
 * was deleted (and register it again), and that a controller changed a condition it owns.
 *
 * <p>Node events are recorded after the write that made them true succeeded, so a failed PATCH does
 * not leave an event for a status nobody saw.
 *
 * <p>Not thread-safe: used on the node-status thread only.
 */
final class NodeStatusSync {
  private static final Logger log = LoggerFactory.getLogger(NodeStatusSync.class);

  private final NodeOptions options;
  private final KubernetesClient client;
  private final Clock clock;
  private final NodeInfo machine;
  private final Supplier<String> runtimeVersion;
  private final Supplier<Health> readiness;
  private final EventRecorder recorder;
  private final NodeLease lease;
  private final NodeState state;
  private final String name;
  private String knownRuntimeVersion;
  private boolean runtimeVersionFailing;
  private int failures;

  NodeStatusSync(
      NodeOptions options,
      KubernetesClient client,
      Clock clock,
      NodeInfo machine,
      Supplier<String> runtimeVersion,
      Supplier<Health> readiness,
      EventRecorder recorder,
      NodeLease lease,
      NodeState state) {
    this.options = options;
    this.client = client;
    this.clock = clock;
    this.machine = machine;
    this.runtimeVersion = runtimeVersion;
    this.readiness = readiness;
    this.recorder = recorder;
    this.lease = lease;
    this.state = state;
    this.name = options.nodeName();
  }

  /** The status this node should have, given what the API server holds (null when nothing). */
  Desired desired(NodeStatus onServer, List<NodeCondition> conditions, Instant now) {
    return NodeStatuses.desired(
        options, machine, runtimeVersion(onServer), health(), conditions, now);
  }

  /** One status sync. Never throws for API failures; a Node found gone is marked unregistered. */
  void sync() {
    Instant now = clock.instant();
    Node current;
    try {
      current = client.nodes().withName(name).get();
    } catch (RuntimeException e) {
      failed(e);
      return;
    }
    if (current == null) {
      gone();
      return;
    }
    String uid = current.getMetadata().getUid();
    if (!Objects.equals(uid, state.nodeUid)) {
      log.info("NodeStatus: node {} has a new uid {} (was {})", name, uid, state.nodeUid);
      state.nodeUid = uid;
      lease.reset();
    }
    NodeStatus onServer = current.getStatus();
    Desired desired = desired(onServer, onServer == null ? null : onServer.getConditions(), now);
    boolean changed = NodeStatuses.changed(onServer, desired.status());
    if (!NodeStatuses.shouldReport(
        changed, state.lastReportTime, now, options.statusReportFrequency())) {
      ok(now);
      return;
    }
    Node patched;
    try {
      String patch =
          client.getKubernetesSerialization().asJson(NodeStatuses.statusPatch(desired.status()));
      patched =
          client
              .nodes()
              .withName(name)
              .subresource("status")
              .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    } catch (RuntimeException e) {
      if (Errors.isNotFound(e)) {
        gone();
      } else {
        failed(e);
      }
      return;
    }
    log.debug("NodeStatus: reported the status of node {} (changed: {})", name, changed);
    ok(now);
    written(patched, desired, now);
  }

  /**
   * Records a successful write: the server's metadata and spec with the status this agent sent, and
   * the events of the conditions it made true (with the registration events, the first time).
   */
  void written(Node fromServer, Desired desired, Instant now) {
    state.lastReportTime = now;
    state.lastReported = new NodeBuilder(fromServer).withStatus(desired.status()).build();
    recordEvents(desired);
  }

  private void gone() {
    log.warn("NodeStatus: node {} is gone from the API server; registering it again", name);
    state.registered = false;
    state.lastReportTime = null;
    state.lastError = "node " + name + " was deleted";
  }

  private void ok(Instant now) {
    if (failures > 0) {
      log.info(
          "NodeStatus: syncing the status of node {} works again after {} failed attempts",
          name,
          failures);
      failures = 0;
    }
    state.lastStatusOk = now;
  }

  private void failed(RuntimeException e) {
    failures++;
    state.lastError = Errors.describeApi(e);
    String message =
        "NodeStatus: cannot sync the status of node {} ({} failed in a row): {}; retrying in {}";
    Object[] args = {
      name, failures, state.lastError, Durations.format(options.statusUpdateFrequency())
    };
    if (Errors.isRefused(e)) {
      log.error(message, args);
    } else {
      log.warn(message, args);
    }
  }

  private void recordEvents(Desired written) {
    List<String> reasons = new ArrayList<>();
    if (state.registrationEventsPending) {
      reasons.addAll(NodeStatuses.REGISTRATION_EVENTS);
      state.registrationEventsPending = false;
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

  private Health health() {
    try {
      Health h = readiness.get();
      return h == null ? Health.failing("readiness is unknown") : h;
    } catch (RuntimeException e) {
      return Health.failing("readiness check failed: " + Errors.describeApi(e));
    }
  }
}
