package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The secrets and configMaps a pod refers to, as upstream's {@code VisitPodSecretNames} and {@code
 * VisitPodConfigmapNames}: volumes (projected sources too), {@code env} and {@code envFrom} of
 * every container, and {@code imagePullSecrets}. Pure functions.
 */
final class ObjectRefs {
  private ObjectRefs() {}

  /** The kinds of object a pod may refer to by name. */
  enum Kind {
    SECRET,
    CONFIG_MAP
  }

  /** One object of the pod's namespace. */
  record Ref(Kind kind, String namespace, String name) {
    @Override
    public String toString() {
      return (kind == Kind.SECRET ? "secret " : "configmap ") + namespace + "/" + name;
    }
  }

  static Set<Ref> of(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    Set<Ref> refs = new LinkedHashSet<>();
    var spec = pod.getSpec();
    if (spec == null) {
      return refs;
    }
    for (LocalObjectReference r : nonNull(spec.getImagePullSecrets())) {
      add(refs, Kind.SECRET, ns, r.getName());
    }
    for (Volume v : nonNull(spec.getVolumes())) {
      volume(refs, ns, v);
    }
    List<Container> all = new ArrayList<>(nonNull(spec.getContainers()));
    all.addAll(nonNull(spec.getInitContainers()));
    for (Container c : all) {
      container(refs, ns, c);
    }
    return refs;
  }

  private static void volume(Set<Ref> refs, String ns, Volume v) {
    if (v.getSecret() != null) {
      add(refs, Kind.SECRET, ns, v.getSecret().getSecretName());
    }
    if (v.getConfigMap() != null) {
      add(refs, Kind.CONFIG_MAP, ns, v.getConfigMap().getName());
    }
    if (v.getProjected() != null) {
      for (VolumeProjection p : nonNull(v.getProjected().getSources())) {
        if (p.getSecret() != null) {
          add(refs, Kind.SECRET, ns, p.getSecret().getName());
        }
        if (p.getConfigMap() != null) {
          add(refs, Kind.CONFIG_MAP, ns, p.getConfigMap().getName());
        }
      }
    }
  }

  private static void container(Set<Ref> refs, String ns, Container c) {
    for (EnvFromSource f : nonNull(c.getEnvFrom())) {
      if (f.getSecretRef() != null) {
        add(refs, Kind.SECRET, ns, f.getSecretRef().getName());
      }
      if (f.getConfigMapRef() != null) {
        add(refs, Kind.CONFIG_MAP, ns, f.getConfigMapRef().getName());
      }
    }
    for (EnvVar e : nonNull(c.getEnv())) {
      var from = e.getValueFrom();
      if (from == null) {
        continue;
      }
      if (from.getSecretKeyRef() != null) {
        add(refs, Kind.SECRET, ns, from.getSecretKeyRef().getName());
      }
      if (from.getConfigMapKeyRef() != null) {
        add(refs, Kind.CONFIG_MAP, ns, from.getConfigMapKeyRef().getName());
      }
    }
  }

  private static void add(Set<Ref> refs, Kind kind, String ns, String name) {
    if (name != null && !name.isEmpty()) {
      refs.add(new Ref(kind, ns, name));
    }
  }

  private static <T> List<T> nonNull(List<T> l) {
    return l == null ? List.of() : l;
  }
}
