package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.jkubelet.agent.util.Errors;
import java.util.function.Function;

/**
 * {@link EventWriter} on a fabric8 client, through the core/v1 events API. Thread-safe.
 *
 * <p>NOTE: a node may create and patch events but not read them (the Node authorizer's rules), so a
 * patch names its event with {@code resource(event)}: fabric8's {@code withName(..).patch(..)}
 * first GETs the object.
 */
final class FabricEventWriter implements EventWriter {
  private final KubernetesClient client;

  FabricEventWriter(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Event create(Event event) throws EventWriteException {
    return write(event, Resource::create);
  }

  @Override
  public Event patch(Event event, String patch) throws EventWriteException {
    return write(event, r -> r.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch));
  }

  private Event write(Event event, Function<Resource<Event>, Event> call)
      throws EventWriteException {
    try {
      return call.apply(
          client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event));
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  private static EventWriteException failure(KubernetesClientException e) {
    String why = Errors.apiMessage(e);
    return Errors.withCause(
        new EventWriteException(Errors.httpCode(e), why != null ? why : e.getMessage()), e);
  }
}
