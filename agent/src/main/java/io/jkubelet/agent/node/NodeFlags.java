package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.jkubelet.agent.util.LabelSyntax;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Parsers for the node flags {@code --register-with-taints} and {@code --node-labels}, following
 * upstream's {@code pkg/util/taints.ParseTaints}, {@code cliflag.MapStringString} and the label
 * checks of {@code ValidateKubeletFlags}. Errors are {@link IllegalArgumentException}s that quote
 * the bad entry.
 */
public final class NodeFlags {
  private NodeFlags() {}

  /** The effects a taint may have. */
  public static final List<String> TAINT_EFFECTS =
      List.of("NoSchedule", "PreferNoSchedule", "NoExecute");

  /** The labels in the kubernetes.io and k8s.io namespaces that a kubelet may set. */
  private static final Set<String> KUBELET_LABELS =
      Set.of(
          "kubernetes.io/hostname",
          "topology.kubernetes.io/zone",
          "topology.kubernetes.io/region",
          "failure-domain.beta.kubernetes.io/zone",
          "failure-domain.beta.kubernetes.io/region",
          "beta.kubernetes.io/instance-type",
          "node.kubernetes.io/instance-type",
          "kubernetes.io/os",
          "kubernetes.io/arch",
          "beta.kubernetes.io/os",
          "beta.kubernetes.io/arch");

  private static final List<String> KUBELET_LABEL_NAMESPACES =
      List.of("kubelet.kubernetes.io", "node.kubernetes.io");

  /**
   * Parses {@code key=value:Effect,key2:Effect}. An empty or blank spec is no taints.
   *
   * @throws IllegalArgumentException naming the entry that is malformed, has a bad key or value, an
   *     unknown effect, or repeats a key and effect
   */
  public static List<Taint> parseTaints(String spec) {
    List<Taint> taints = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return taints;
    }
    Set<String> seen = new HashSet<>();
    for (String raw : spec.split(",", -1)) {
      String entry = raw.trim();
      Taint t = parseTaint(entry);
      if (!seen.add(t.getKey() + ":" + t.getEffect())) {
        throw new IllegalArgumentException(
            "duplicate taint \"" + entry + "\": key and effect already given");
      }
      taints.add(t);
    }
    return taints;
  }

  private static Taint parseTaint(String entry) {
    String[] parts = entry.split(":", -1);
    if (parts.length != 2) {
      throw badTaint(entry, "expected key[=value]:Effect");
    }
    String effect = parts[1];
    if (!TAINT_EFFECTS.contains(effect)) {
      throw badTaint(
          entry,
          "effect must be one of "
              + String.join(", ", TAINT_EFFECTS)
              + (effect.isEmpty() ? ", got none" : ", got \"" + effect + "\""));
    }
    String[] kv = parts[0].split("=", -1);
    if (kv.length > 2) {
      throw badTaint(entry, "expected key[=value]:Effect, with one '=' at most");
    }
    String key = kv[0];
    String value = kv.length == 2 ? kv[1] : "";
    LabelSyntax.checkKey(key).ifPresent(err -> throwBadTaint(entry, "key: " + err));
    LabelSyntax.checkValue(value).ifPresent(err -> throwBadTaint(entry, "value: " + err));
    return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
  }

  /**
   * Parses {@code k=v,k2=v2}; spaces around keys and values are trimmed and empty entries skipped,
   * as upstream's {@code MapStringString}. Keys in the {@code kubernetes.io} or {@code k8s.io}
   * namespaces must be ones a kubelet may set ({@code kubelet.kubernetes.io/*}, {@code
   * node.kubernetes.io/*} or the well-known labels), as upstream's flag validation requires.
   *
   * @throws IllegalArgumentException naming the bad entry
   */
  public static Map<String, String> parseLabels(String spec) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (spec == null || spec.isBlank()) {
      return labels;
    }
    Set<String> restricted = new TreeSet<>();
    for (String raw : spec.split(",", -1)) {
      if (raw.isBlank()) {
        continue;
      }
      int eq = raw.indexOf('=');
      if (eq < 0) {
        throw badLabel(raw.trim(), "expected key=value");
      }
      String key = raw.substring(0, eq).trim();
      String value = raw.substring(eq + 1).trim();
      LabelSyntax.checkKey(key).ifPresent(err -> throwBadLabel(raw.trim(), "key: " + err));
      LabelSyntax.checkValue(value).ifPresent(err -> throwBadLabel(raw.trim(), "value: " + err));
      if (isKubernetesLabel(key) && !isKubeletLabel(key)) {
        restricted.add(key);
      }
      labels.put(key, value);
    }
    if (!restricted.isEmpty()) {
      throw new IllegalArgumentException(
          "unknown 'kubernetes.io' or 'k8s.io' labels "
              + restricted
              + ": labels in these namespaces must begin with kubelet.kubernetes.io/ or"
              + " node.kubernetes.io/, or be one of "
              + new TreeSet<>(KUBELET_LABELS));
    }
    return labels;
  }

  private static String namespace(String key) {
    int slash = key.indexOf('/');
    return slash < 0 ? "" : key.substring(0, slash);
  }

  private static boolean isKubernetesLabel(String key) {
    String ns = namespace(key);
    return ns.equals("kubernetes.io")
        || ns.endsWith(".kubernetes.io")
        || ns.equals("k8s.io")
        || ns.endsWith(".k8s.io");
  }

  private static boolean isKubeletLabel(String key) {
    if (KUBELET_LABELS.contains(key)) {
      return true;
    }
    String ns = namespace(key);
    return KUBELET_LABEL_NAMESPACES.stream()
        .anyMatch(allowed -> ns.equals(allowed) || ns.endsWith("." + allowed));
  }

  private static IllegalArgumentException badTaint(String entry, String why) {
    return new IllegalArgumentException("invalid taint \"" + entry + "\": " + why);
  }

  private static void throwBadTaint(String entry, String why) {
    throw badTaint(entry, why);
  }

  private static IllegalArgumentException badLabel(String entry, String why) {
    return new IllegalArgumentException("invalid node label \"" + entry + "\": " + why);
  }

  private static void throwBadLabel(String entry, String why) {
    throw badLabel(entry, why);
  }
}
