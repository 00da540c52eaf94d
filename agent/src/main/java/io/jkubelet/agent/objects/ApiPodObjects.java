package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.jkubelet.agent.util.Errors;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads each object from the API server when asked (upstream's {@code Get} strategy); {@link
 * WatchPodObjects} falls back to it until its watch has synced. Services are listed on demand.
 * Thread-safe: the client is.
 */
public final class ApiPodObjects implements PodObjects {
  private final KubernetesClient client;
  private final AtomicBoolean started = new AtomicBoolean();

  public ApiPodObjects(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<Secret> secret(String namespace, String name) throws Unavailable {
    return get("secret", client.secrets(), namespace, name);
  }

  @Override
  public Optional<ConfigMap> configMap(String namespace, String name) throws Unavailable {
    return get("configmap", client.configMaps(), namespace, name);
  }

  /** One GET; {@code kind} names the object in the error. */
  private static <T extends HasMetadata> Optional<T> get(
      String kind, MixedOperation<T, ?, ?> objects, String namespace, String name)
      throws Unavailable {
    try {
      return Optional.ofNullable(objects.inNamespace(namespace).withName(name).get());
    } catch (KubernetesClientException e) {
      throw unavailable(kind, namespace, name, e);
    }
  }

  @Override
  public List<Service> services() {
    return client.services().inAnyNamespace().list().getItems();
  }

  @Override
  public void register(Pod pod) {}

  @Override
  public void unregister(Pod pod) {}

  @Override
  public void start() {
    started.set(true);
  }

  @Override
  public void stop() {
    started.set(false);
  }

  @Override
  public Health healthy() {
    return started.get() ? Health.OK : Health.failing("not started");
  }

  private static Unavailable unavailable(
      String kind, String namespace, String name, KubernetesClientException e) {
    return Errors.withCause(
        new Unavailable(
            String.format("failed to get %s %s/%s: %s", kind, namespace, name, e.getMessage())),
        e);
  }
}
