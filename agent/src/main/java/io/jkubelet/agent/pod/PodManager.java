package io.jkubelet.agent.pod;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.PodConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pods this node should run, as upstream's {@code pod.Manager}: the sync loop adds, updates and
 * deletes them; workers, the server and housekeeping read them.
 *
 * <p>Mirror pods (the API server's copies of static pods, annotated {@code
 * kubernetes.io/config.mirror}) are kept apart, by full name: they are never run, only matched with
 * their static pod. Thread-safe.
 */
public final class PodManager {
  private final Map<String, Pod> byUid = new ConcurrentHashMap<>();
  private final Map<String, Pod> mirrorsByFullName = new ConcurrentHashMap<>();

  /** Adds or replaces a pod, or a mirror pod. */
  public void addOrUpdate(Pod pod) {
    if (Annotations.isMirror(pod)) {
      mirrorsByFullName.put(PodConfig.fullName(pod), pod);
    } else {
      byUid.put(pod.getMetadata().getUid(), pod);
    }
  }

  public void delete(Pod pod) {
    if (Annotations.isMirror(pod)) {
      mirrorsByFullName.computeIfPresent(
          PodConfig.fullName(pod),
          (k, v) -> v.getMetadata().getUid().equals(pod.getMetadata().getUid()) ? null : v);
    } else {
      byUid.remove(pod.getMetadata().getUid());
    }
  }

  public Optional<Pod> byUid(String uid) {
    return Optional.ofNullable(byUid.get(uid));
  }

  /** The pod's object in the API server, by the pod's UID: itself, or a static pod's mirror. */
  public Optional<Pod> apiObject(String uid) {
    return byUid(uid).flatMap(p -> Annotations.isStatic(p) ? mirrorOf(p) : Optional.of(p));
  }

  /** Every desired pod, oldest first by when it was first seen, then by name. */
  public List<Pod> pods() {
    return byUid.values().stream()
        .sorted(Comparator.comparing((Pod p) -> seen(p)).thenComparing(PodConfig::fullName))
        .toList();
  }

  public int size() {
    return byUid.size();
  }

  /** The mirror pod of a static pod, if the API server has one. */
  public Optional<Pod> mirrorOf(Pod staticPod) {
    return Optional.ofNullable(mirrorsByFullName.get(PodConfig.fullName(staticPod)));
  }

  /** Mirror pods whose static pod is gone. */
  public List<Pod> orphanedMirrors() {
    List<Pod> orphans = new ArrayList<>();
    mirrorsByFullName.forEach(
        (name, mirror) -> {
          boolean owned =
              byUid.values().stream()
                  .anyMatch(p -> Annotations.isStatic(p) && PodConfig.fullName(p).equals(name));
          if (!owned) {
            orphans.add(mirror);
          }
        });
    return orphans;
  }

  private static String seen(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    String s = a == null ? null : a.get(Annotations.CONFIG_SEEN);
    return s == null ? "" : s;
  }
}
