package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.node.NodeStatuses.Desired;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the Node, as upstream's {@code registerWithAPIServer}: creates it with its status, or
 * takes over one that exists. Failures are retried with a doubling backoff from 100 ms to 7 s.
 *
 * <p>Not thread-safe: used on the node-status thread only.
 */
final class NodeRegistration {
  private static final Logger log = LoggerFactory.getLogger(NodeRegistration.class);

  static final Backoff.Policy BACKOFF =
      new Backoff.Policy(Duration.ofMillis(100), Duration.ofSeconds(7));

  private final NodeOptions options;
  private final KubernetesClient client;
  private final Clock clock;
  private final NodeInfo machine;
  private final NodeStatusSync status;
  private final NodeLease lease;
  private final NodeState state;
  private final String name;
  private Duration retryDelay;
  private int failures;

  NodeRegistration(
      NodeOptions options,
      KubernetesClient client,
      Clock clock,
      NodeInfo machine,
      NodeStatusSync status,
      NodeLease lease,
      NodeState state) {
    this.options = options;
    this.client = client;
    this.clock = clock;
    this.machine = machine;
    this.status = status;
    this.lease = lease;
    this.state = state;
    this.name = options.nodeName();
  }

  /** How long to wait after the last failed attempt. */
  Duration retryDelay() {
    return retryDelay == null ? BACKOFF.initial() : retryDelay;
  }

  /** Creates the Node, or adopts the existing one. Returns whether the node is registered. */
  boolean register() {
    Instant now = clock.instant();
    Desired desired = status.desired(null, List.of(), now);
    Node node = NodeStatuses.initialNode(options, machine, desired.status());
    try {
      // Nodes accept their status on create, so one call registers and reports.
      Node created = client.nodes().resource(node).create();
      state.nodeUid = created.getMetadata().getUid();
      registered("NodeStatus: registered node {} (uid {})" + afterFailures(), state.nodeUid);
      status.written(created, desired, now);
      return true;
    } catch (RuntimeException e) {
      if (Errors.isConflict(e)) {
        return adopt(node);
      }
      failed(e);
      return false;
    }
  }

  /**
   * Takes over a Node that already exists: adds and updates this agent's labels (removing none) and
   * leaves its taints alone, as upstream does on re-registration. The status sync that follows
   * brings its status up to date.
   */
  private boolean adopt(Node ours) {
    try {
      Node existing = client.nodes().withName(name).get();
      if (existing == null) {
        failed(new IllegalStateException("node " + name + " vanished while adopting it"));
        return false;
      }
      Map<String, String> have =
          existing.getMetadata().getLabels() == null
              ? Map.of()
              : existing.getMetadata().getLabels();
      Map<String, String> changes = new LinkedHashMap<>();
      ours.getMetadata()
          .getLabels()
          .forEach(
              (k, v) -> {
                if (!v.equals(have.get(k))) {
                  changes.put(k, v);
                }
              });
      if (!changes.isEmpty()) {
        String patch =
            client
                .getKubernetesSerialization()
                .asJson(Map.of("metadata", Map.of("labels", changes)));
        existing =
            client.nodes().withName(name).patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      }
      state.nodeUid = existing.getMetadata().getUid();
      registered(
          "NodeStatus: node {} already exists (uid {}); took it over"
              + (changes.isEmpty() ? "" : ", setting labels " + changes)
              + afterFailures(),
          state.nodeUid);
      return true;
    } catch (RuntimeException e) {
      failed(e);
      return false;
    }
  }

  private void registered(String message, String uid) {
    log.info(message, name, uid);
    state.registered = true;
    state.everRegistered = true;
    failures = 0;
    retryDelay = null;
    lease.reset(); // its owner must become this Node
  }

  private void failed(RuntimeException e) {
    failures++;
    retryDelay = BACKOFF.next(retryDelay);
    state.lastError = Errors.describeApi(e);
    String message = "NodeStatus: cannot register node {} (attempt {}): {}; retrying in {}";
    Object[] args = {name, failures, state.lastError, Durations.format(retryDelay)};
    if (Errors.isRefused(e)) {
      log.error(message, args); // retrying will not help until someone fixes it
    } else {
      log.warn(message, args);
    }
  }

  private String afterFailures() {
    return failures == 0 ? "" : " after " + failures + " failed attempts";
  }
}
