package io.jkubelet.agent.runtime.docker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Labels every listed or watched container must carry besides {@code io.kubernetes.pod.uid}:
 * jkubelet's node label, so that two agents (or test runs) sharing one engine never adopt or kill
 * each other's containers. Empty to see every kubelet-made container. Immutable.
 */
record Scope(Map<String, String> labels) {
  static final Scope ALL = new Scope(Map.of());

  Scope {
    labels = Map.copyOf(labels);
  }

  /**
   * The label filter as the engine takes it: {@code key} (any value) when {@code value} is null,
   * else {@code key=value}, and each scope label as {@code key=value}.
   */
  List<String> filter(String key, String value) {
    List<String> filter = new ArrayList<>();
    filter.add(value == null ? key : key + "=" + value);
    filter.addAll(labelFilter());
    return filter;
  }

  /** The scope's own labels as the engine's label filter takes them: {@code key=value} each. */
  List<String> labelFilter() {
    List<String> filter = new ArrayList<>();
    labels.forEach((k, v) -> filter.add(k + "=" + v));
    return filter;
  }
}
