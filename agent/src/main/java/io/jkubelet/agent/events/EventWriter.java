package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Writes Event objects to the API server: the two calls of client-go's {@code EventSink} that the
 * kubelet uses. Implementations throw {@link EventWriteException} with the HTTP status, or 0 when
 * no answer came (connection refused, timeout).
 */
public interface EventWriter {

  /** POSTs the event into its namespace and returns it as stored. */
  Event create(Event event) throws EventWriteException;

  /**
   * PATCHes (strategic merge) the existing event named {@code event.metadata.name} in its namespace
   * with {@code patch}, and returns it as stored.
   */
  Event patch(Event event, String patch) throws EventWriteException;

  /** The fabric8 implementation on {@code client}. */
  static EventWriter of(KubernetesClient client) {
    return new FabricEventWriter(client);
  }
}
