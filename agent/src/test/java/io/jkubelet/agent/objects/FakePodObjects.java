package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link PodObjects} from maps the test fills, keyed {@code namespace/name}; {@link #unavailable}
 * makes every read fail as an unreachable API server does. Records registrations.
 */
public final class FakePodObjects implements PodObjects {
  public final Map<String, Secret> secrets = new ConcurrentHashMap<>();
  public final Map<String, ConfigMap> configMaps = new ConcurrentHashMap<>();
  public final List<Service> services = new CopyOnWriteArrayList<>();
  public final List<String> registered = new CopyOnWriteArrayList<>();
  public volatile String unavailable;

  /** How many secrets were read; while {@code hold} is set, each read waits for it first. */
  public final AtomicInteger secretReads = new AtomicInteger();

  public volatile CountDownLatch hold;

  public FakePodObjects put(Secret s) {
    secrets.put(s.getMetadata().getNamespace() + "/" + s.getMetadata().getName(), s);
    return this;
  }

  public FakePodObjects put(ConfigMap c) {
    configMaps.put(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c);
    return this;
  }

  @Override
  public Optional<Secret> secret(String namespace, String name) throws Unavailable {
    secretReads.incrementAndGet();
    CountDownLatch h = hold;
    if (h != null) {
      try {
        h.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    check();
    return Optional.ofNullable(secrets.get(namespace + "/" + name));
  }

  @Override
  public Optional<ConfigMap> configMap(String namespace, String name) throws Unavailable {
    check();
    return Optional.ofNullable(configMaps.get(namespace + "/" + name));
  }

  private void check() throws Unavailable {
    if (unavailable != null) {
      throw new Unavailable(unavailable);
    }
  }

  @Override
  public List<Service> services() {
    return List.copyOf(services);
  }

  @Override
  public void register(Pod pod) {
    registered.add("+" + pod.getMetadata().getUid());
  }

  @Override
  public void unregister(Pod pod) {
    registered.add("-" + pod.getMetadata().getUid());
  }

  @Override
  public void start() {}

  @Override
  public void stop() {}

  @Override
  public Health healthy() {
    return Health.OK;
  }
}
