package io.jkubelet.agent.pod;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pods this node should run, as upstream's {@code pod.Manager}: the sync loop adds, updates and
 * deletes them; workers, the server and housekeeping read them. Thread-safe.
 */
public final class PodManager {
  private final Map<String, Pod> byUid = new ConcurrentHashMap<>();

  /** Adds or replaces a pod. */
  public void addOrUpdate(Pod pod) {
    byUid.put(pod.getMetadata().getUid(), pod);
  }

  public void delete(Pod pod) {
    byUid.remove(pod.getMetadata().getUid());
  }

  public Optional<Pod> byUid(String uid) {
    return Optional.ofNullable(byUid.get(uid));
  }

  /** Every desired pod, oldest first by when it was first seen, then by name. */
  public List<Pod> pods() {
    return byUid.values().stream()
        .sorted(
            Comparator.comparing((Pod p) -> seen(p))
                .thenComparing(
                    p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()))
        .toList();
  }

  public int size() {
    return byUid.size();
  }

  private static String seen(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    String s = a == null ? null : a.get("kubernetes.io/config.seen");
    return s == null ? "" : s;
  }
}
