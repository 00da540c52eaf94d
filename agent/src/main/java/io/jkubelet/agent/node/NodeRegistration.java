package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.node.NodeStatuses.Desired;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the Node with the API server, as upstream's {@code registerWithAPIServer}: creates it
 * with its status, or, when it already exists, takes it over. A failed attempt is retried after a
 * delay that doubles from 100 ms to 7 s ({@link #BACKOFF}) and starts over once registered.
 *
 * <p>Not thread-safe: confined to the node-status thread (or a test's thread).
 */
final class NodeRegistration {
  private static final Logger log = LoggerFactory.getLogger(NodeRegistration.class);

  /** The retry delays between failed attempts, as upstream's. */
  static final Backoff.Policy BACKOFF =
      new Backoff.Policy(Duration.ofMillis(100), Duration.ofSeconds(7));

  /** What one {@link #register} did. */
  sealed interface Result {
    /**
     * The Node is registered; {@code uid} is its uid. {@code takenOver} is the Node as the API
     * server has it when this agent took over an existing one (its status not yet brought up to
     * date), null when this agent created it (with its status).
     */
    record Registered(String uid, Node takenOver) implements Result {}

    /** It is not; {@code error} says why, and the next attempt should come {@code retryIn}. */
    record Failed(String error, Duration retryIn) implements Result {}
  }

  private final NodeOptions options;
  private final KubernetesClient client;
  private final NodeInfo machine;
  private final NodeStatusSync status;
  private final String name;

  /** The delay after the last failed attempt, or null after a success. */
  private Duration backoff;

  private int failures;

  NodeRegistration(
      NodeOptions options, KubernetesClient client, NodeInfo machine, NodeStatusSync status) {
    this.options = Objects.requireNonNull(options, "options");
    this.client = Objects.requireNonNull(client, "client");
    this.machine = Objects.requireNonNull(machine, "machine");
    this.status = Objects.requireNonNull(status, "status");
    this.name = options.nodeName();
  }

  /**
   * Takes over the Node when it exists, else creates it. A created Node carries its status, so one
   * call registers and reports, and the status sync records the events. Never throws for API
   * failures: they are logged (at error when retrying cannot help) and returned.
   *
   * <p>Upstream creates first and reads on a conflict. A restart, the usual case, finds its Node:
   * reading first takes it over with one request instead of a refused create and then a read.
   */
  Result register(Instant now) {
    Result adopted = adoptExisting();
    if (adopted != null) {
      return adopted;
    }
    Desired desired = status.desired(null, now);
    Node node = NodeStatuses.initialNode(options, machine, desired.status());
    try {
      Node created = client.nodes().resource(node).create();
      String uid = created.getMetadata().getUid();
      Result registered = registered("NodeStatus: registered node {} (uid {})", uid, null);
      status.written(created, desired, now);
      return registered;
    } catch (RuntimeException e) {
      if (!Errors.isConflict(e)) {
        return failed(e);
      }
    }
    // Created by someone else since it was read.
    adopted = adoptExisting();
    return adopted != null
        ? adopted
        : failed(new IllegalStateException("node " + name + " vanished while adopting it"));
  }

  /** Reads the Node and takes it over; null when there is none. */
  private Result adoptExisting() {
    Node existing;
    try {
      existing = client.nodes().withName(name).get();
    } catch (RuntimeException e) {
      return failed(e);
    }
    return existing == null ? null : adopt(existing);
  }

  /**
   * Takes over a Node that already exists: adds and updates this agent's labels (removing none) and
   * the attach/detach annotation, and leaves its taints alone, as upstream does on re-registration.
   * The status sync that follows brings its status up to date.
   */
  private Result adopt(Node existing) {
    try {
      Map<String, String> changes = missingLabels(existing, NodeStatuses.labels(options, machine));
      boolean annotate = !"true".equals(annotation(existing));
      if (!changes.isEmpty() || annotate) {
        // Upstream's reconcileCMADAnnotationWithExistingNode: the attach/detach controller owns it.
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("labels", changes);
        metadata.put("annotations", Map.of(NodeStatuses.CONTROLLER_MANAGED_ATTACH_DETACH, "true"));
        String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", metadata));
        existing =
            client
                .nodes()
                .resource(existing)
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      }
      return registered(
          "NodeStatus: node {} already exists (uid {}); took it over"
              + (changes.isEmpty() ? "" : ", setting labels " + changes),
          existing.getMetadata().getUid(),
          existing);
    } catch (RuntimeException e) {
      return failed(e);
    }
  }

  private static String annotation(Node n) {
    Map<String, String> a = n.getMetadata().getAnnotations();
    return a == null ? null : a.get(NodeStatuses.CONTROLLER_MANAGED_ATTACH_DETACH);
  }

  /** The labels of {@code ours} that {@code existing} lacks or has with another value. */
  private static Map<String, String> missingLabels(Node existing, Map<String, String> ours) {
    Map<String, String> have =
        existing.getMetadata().getLabels() == null ? Map.of() : existing.getMetadata().getLabels();
    Map<String, String> changes = new LinkedHashMap<>();
    ours.forEach(
        (k, v) -> {
          if (!v.equals(have.get(k))) {
            changes.put(k, v);
          }
        });
    return changes;
  }

  private Result registered(String message, String uid, Node takenOver) {
    String after = failures == 0 ? "" : " after " + failures + " failed attempts";
    log.info(message + after, name, uid);
    failures = 0;
    backoff = null;
    return new Result.Registered(uid, takenOver);
  }

  private Result failed(RuntimeException e) {
    failures++;
    backoff = BACKOFF.next(backoff);
    String error = Errors.describeApi(e);
    String message = "NodeStatus: cannot register node {} (attempt {}): {}; retrying in {}";
    Object[] args = {name, failures, error, Durations.format(backoff)};
    if (Errors.isRefused(e)) {
      log.error(message, args); // retrying will not help until someone fixes it
    } else {
      log.warn(message, args);
    }
    return new Result.Failed(error, backoff);
  }
}
