package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.podconfig.PodDefaults;
import io.jkubelet.agent.util.ApiSerialization;
import java.util.Map;

/**
 * Pods for tests: from YAML, defaulted as the API server would ({@link #parse}, {@link #simple}),
 * or built as a test needs them, not defaulted ({@link #builder}, {@link #container}). The one
 * place tests make pods; a test that needs another shape adds it here.
 */
public final class TestPods {
  private TestPods() {}

  /** A defaulted pod from YAML; the YAML should carry metadata.uid and namespace. */
  public static Pod parse(String yaml) {
    Pod pod = ApiSerialization.SHARED.unmarshal(yaml, Pod.class);
    PodDefaults.apply(pod);
    if (pod.getMetadata().getNamespace() == null) {
      pod.getMetadata().setNamespace("default");
    }
    return pod;
  }

  /** A pod with one busybox container per name, running {@code sleep 3600}. */
  public static Pod simple(String uid, String name, String... containers) {
    StringBuilder y = new StringBuilder();
    y.append("apiVersion: v1\nkind: Pod\nmetadata: {name: ")
        .append(name)
        .append(", namespace: default, uid: ")
        .append(uid)
        .append("}\nspec:\n  containers:\n");
    for (String c : containers) {
      y.append("  - {name: ")
          .append(c)
          .append(", image: 'jkubelet/busybox:1.35', command: [sleep, '3600']}\n");
    }
    return parse(y.toString());
  }

  /**
   * A builder of a pod with that namespace, name and uid and an empty spec, not defaulted: the test
   * adds what it needs ({@code editMetadata()}, {@code editSpec()}). For a pod created through the
   * API, give the namespace it is created in and a null uid (the API server sets it).
   */
  public static PodBuilder builder(String namespace, String name, String uid) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .endSpec();
  }

  /** A pod of that namespace, name and uid, with an empty spec: a reference, an event's object. */
  public static Pod named(String namespace, String name, String uid) {
    return builder(namespace, name, uid).build();
  }

  /** A container of that name, with a busybox image, requesting and limiting as given. */
  public static Container container(
      String name, Map<String, Quantity> requests, Map<String, Quantity> limits) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("busybox")
        .withNewResources()
        .withRequests(requests)
        .withLimits(limits)
        .endResources()
        .build();
  }
}
