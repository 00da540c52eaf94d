package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.jkubelet.agent.util.Lifecycle;
import java.util.List;
import java.util.Optional;

/** {@link PodObjects#NONE}: standalone mode, with no API server to read from. Stateless. */
final class NoPodObjects implements PodObjects, Lifecycle.Idle {
  @Override
  public Optional<Secret> secret(String namespace, String name) throws Unavailable {
    throw new Unavailable("no API server: jkubelet runs standalone");
  }

  @Override
  public Optional<ConfigMap> configMap(String namespace, String name) throws Unavailable {
    throw new Unavailable("no API server: jkubelet runs standalone");
  }

  @Override
  public List<Service> services() {
    return List.of();
  }

  @Override
  public void register(Pod pod) {}

  @Override
  public void unregister(Pod pod) {}
}
