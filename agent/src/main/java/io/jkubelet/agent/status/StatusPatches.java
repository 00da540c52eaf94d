package io.jkubelet.agent.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.util.ApiSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the kubelet owns of a pod's status, how two statuses compare, and the patch that writes it.
 *
 * <p>The patch is a strategic merge patch of {@code pods/<name>/status}, as upstream's, but one
 * that does not depend on the status it replaces: upstream computes a two-way patch from the status
 * it has just read (a GET before every write); this one clears what it does not set by itself, so a
 * write is one request. NOTE: a strategic merge patch merges {@code conditions} by {@code type} and
 * {@code podIPs} by {@code ip}: without the explicit nulls a condition would keep the {@code
 * reason} and {@code message} of its previous version, and without the replace directive an old IP
 * would stay in {@code podIPs} (which the API server refuses). Conditions the kubelet does not own
 * (readiness gates, for instance) are left to the API server's merge, as upstream's {@code
 * mergePodStatus} carries them over.
 *
 * <p>Stateless; thread-safe.
 */
final class StatusPatches {
  /** The status fields the kubelet writes; others ({@code nominatedNodeName}) are left alone. */
  static final List<String> OWNED_FIELDS =
      List.of(
          "phase",
          "conditions",
          "message",
          "reason",
          "hostIP",
          "podIP",
          "podIPs",
          "startTime",
          "initContainerStatuses",
          "containerStatuses",
          "qosClass");

  /** Upstream's {@code kubetypes.PodConditionsByKubelet}. */
  static final Set<String> KUBELET_CONDITIONS =
      Set.of("PodScheduled", "Ready", "Initialized", "Unschedulable", "ContainersReady");

  /** The fields of a pod condition; those a condition of ours lacks are cleared. */
  private static final List<String> CONDITION_FIELDS =
      List.of("type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message");

  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusPatches() {}

  /**
   * The kubelet-owned part of a status as a JSON tree, for comparison: only {@link #OWNED_FIELDS}
   * and {@link #KUBELET_CONDITIONS}, without {@code lastProbeTime}, and without nulls, empty
   * strings, empty lists and empty objects (which the API server omits, as Go's {@code omitempty}).
   */
  static Map<String, Object> semantic(PodStatus status) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (status == null) {
      return out;
    }
    Map<String, Object> tree = tree(status);
    for (String field : OWNED_FIELDS) {
      Object v = tree.get(field);
      if ("conditions".equals(field) && v instanceof List<?> list) {
        List<Object> kept = new ArrayList<>();
        for (Object c : list) {
          if (c instanceof Map<?, ?> m && KUBELET_CONDITIONS.contains(m.get("type"))) {
            Map<Object, Object> copy = new LinkedHashMap<>(m);
            copy.remove("lastProbeTime");
            kept.add(copy);
          }
        }
        v = kept;
      }
      Object pruned = prune(v);
      if (pruned != null) {
        out.put(field, pruned);
      }
    }
    return out;
  }

  /**
   * The strategic merge patch that makes the API object's status ours, whatever it held before, so
   * that it needs no read of the object first: {@code metadata.uid} as the precondition (the API
   * server refuses to change a UID, so a patch aimed at a pod that was replaced fails instead of
   * landing on the new one), and every owned field, null when we do not set it. The API server
   * merges {@code conditions} by type, so conditions others own (readiness gates) stay as they are;
   * each of ours carries an explicit null for a field it lacks, so no reason or message of its
   * previous version survives. {@code podIPs}, merged by IP otherwise, is replaced whole (a {@code
   * $patch: replace} element), and the container status lists, which have no merge key, are
   * replaced as they are.
   */
  static String patch(String uid, PodStatus ours) {
    Map<String, Object> tree = tree(ours);
    Map<String, Object> status = new LinkedHashMap<>();
    for (String field : OWNED_FIELDS) {
      status.put(field, prune(tree.get(field)));
    }
    List<Object> conditions = new ArrayList<>();
    if (status.get("conditions") instanceof List<?> mine) {
      for (Object c : mine) {
        Map<Object, Object> full = new LinkedHashMap<>();
        CONDITION_FIELDS.forEach(f -> full.put(f, null));
        full.putAll((Map<?, ?>) c);
        conditions.add(full);
      }
    }
    status.put("conditions", conditions);
    for (String list : List.of("initContainerStatuses", "containerStatuses")) {
      if (status.get(list) == null) {
        status.put(list, List.of()); // an empty list, not null: clears it all the same
      }
    }
    if (status.get("podIPs") instanceof List<?> mine) {
      // NOTE: apiserver 1.20 turns a list of the directive alone into one empty IP, and refuses
      // it; no IPs is the null (set above), which clears the field.
      List<Object> ips = new ArrayList<>();
      ips.add(Map.of("$patch", "replace"));
      ips.addAll(mine);
      status.put("podIPs", ips);
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("metadata", Map.of("uid", uid));
    patch.put("status", status);
    try {
      return JSON.writeValueAsString(patch);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a status patch", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> tree(Object o) {
    Map<String, Object> m = ApiSerialization.SHARED.convertValue(o, Map.class);
    return m == null ? new LinkedHashMap<>() : m;
  }

  /**
   * Drops nulls, empty strings, empty lists and empty objects, recursively; null if nothing is
   * left.
   */
  private static Object prune(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof String s) {
      return s.isEmpty() ? null : s;
    }
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      m.forEach(
          (k, x) -> {
            Object p = prune(x);
            if (p != null) {
              out.put(k, p);
            }
          });
      return out.isEmpty() ? null : out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      for (Object x : l) {
        Object p = prune(x);
        out.add(p == null ? Map.of() : p);
      }
      return out.isEmpty() ? null : out;
    }
    return v;
  }
}
