package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Lease in {@code kube-node-lease}, as upstream's {@code nodelease} controller: the
 * cheap heartbeat that the node lifecycle controller reads.
 *
 * <p>Renewals update the Lease last seen, so optimistic concurrency applies; on a conflict, or when
 * the Lease or its namespace is gone, the next renewal reads it again, creating it (and the
 * namespace) when missing.
 *
 * <p>The Lease is renewed on the node-status thread, in each round of the {@link NodeStatusManager}
 * just before the status sync: it is the cheaper heartbeat and the one the node lifecycle
 * controller reads. {@link #heartbeat} is that renewal with its failures logged and counted.
 *
 * <p>Not thread-safe: used on the node-status thread only.
 */
final class NodeLease {
  private static final Logger log = LoggerFactory.getLogger(NodeLease.class);

  static final String NAMESPACE = "kube-node-lease";

  private final KubernetesClient client;
  private final String nodeName;
  private final int durationSeconds;

  /** The Lease as the server last returned it, or null to read it again. */
  private Lease latest;

  /** Renewals failed in a row. */
  private int failures;

  NodeLease(KubernetesClient client, String nodeName, int durationSeconds) {
    this.client = client;
    this.nodeName = nodeName;
    this.durationSeconds = durationSeconds;
  }

  /**
   * {@link #renew}s the Lease and logs a failure (with how many in a row) or the first success
   * after failures. Never throws for API failures.
   *
   * @param retryIn when the caller will try again, for the log
   * @return empty when renewed, else what went wrong
   */
  Optional<String> heartbeat(Instant now, String nodeUid, Duration retryIn) {
    try {
      renew(now, nodeUid);
    } catch (RuntimeException e) {
      failures++;
      String error = Errors.describeApi(e);
      log.warn(
          "NodeLease: cannot renew the lease of node {} ({} failed in a row): {}; retrying in {}",
          nodeName,
          failures,
          error,
          Durations.format(retryIn));
      return Optional.of(error);
    }
    if (failures > 0) {
      log.info(
          "NodeLease: renewing the lease of node {} works again after {} failed attempts",
          nodeName,
          failures);
      failures = 0;
    }
    return Optional.empty();
  }

  /**
   * Sets renewTime to {@code now}, holder to the node, and the owner to the Node with {@code
   * nodeUid} (none while it is null).
   *
   * @return the Lease the server now holds
   * @throws KubernetesClientException when the API server refuses or cannot be reached
   */
  Lease renew(Instant now, String nodeUid) {
    if (latest != null) {
      try {
        latest =
            client.leases().inNamespace(NAMESPACE).resource(renewed(latest, now, nodeUid)).update();
        return latest;
      } catch (KubernetesClientException e) {
        latest = null;
        if (!Errors.isConflict(e) && !Errors.isNotFound(e)) {
          throw e;
        }
        // Someone else wrote it, or it is gone: read it again below.
      }
    }
    Lease existing = client.leases().inNamespace(NAMESPACE).withName(nodeName).get();
    if (existing != null) {
      latest =
          client.leases().inNamespace(NAMESPACE).resource(renewed(existing, now, nodeUid)).update();
      return latest;
    }
    Lease fresh =
        renewed(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(nodeName)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .build(),
            now,
            nodeUid);
    try {
      latest = client.leases().inNamespace(NAMESPACE).resource(fresh).create();
    } catch (KubernetesClientException e) {
      if (!Errors.isNotFound(e)) {
        throw e;
      }
      // The API server makes the namespace itself; only an old or odd one lacks it.
      createNamespace();
      latest = client.leases().inNamespace(NAMESPACE).resource(fresh).create();
    }
    return latest;
  }

  /** Forgets the Lease last seen, so the next renewal reads it again. */
  void reset() {
    latest = null;
  }

  private Lease renewed(Lease base, Instant now, String nodeUid) {
    LeaseBuilder b =
        new LeaseBuilder(base)
            .editOrNewSpec()
            .withHolderIdentity(nodeName)
            .withLeaseDurationSeconds(durationSeconds)
            .withRenewTime(ZonedDateTime.ofInstant(now, ZoneOffset.UTC))
            .endSpec();
    if (nodeUid != null) {
      b.editMetadata().withOwnerReferences(owner(nodeUid)).endMetadata();
    }
    return b.build();
  }

  private OwnerReference owner(String nodeUid) {
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(nodeName)
        .withUid(nodeUid)
        .build();
  }

  /**
   * Creates {@value #NAMESPACE}. NOTE: under the Node authorizer a node may not even read
   * namespaces, so this is tried only when creating the Lease found the namespace missing; a 403
   * then fails the renewal with an answer that names the problem.
   */
  private void createNamespace() {
    try {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .create();
    } catch (KubernetesClientException e) {
      if (!Errors.isConflict(e)) {
        throw e;
      }
    }
  }
}
