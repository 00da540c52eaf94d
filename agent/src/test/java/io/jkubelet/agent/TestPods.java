package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.podconfig.PodDefaults;
import io.jkubelet.agent.util.ApiSerialization;

/** Pods for tests, from YAML, defaulted as the API server would. */
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
}
