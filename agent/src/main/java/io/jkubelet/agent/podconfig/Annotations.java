package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The {@code kubernetes.io/config.*} annotations the kubelet keeps on pods. */
public final class Annotations {
  public static final String CONFIG_HASH = "kubernetes.io/config.hash";
  public static final String CONFIG_SOURCE = "kubernetes.io/config.source";
  public static final String CONFIG_SEEN = "kubernetes.io/config.seen";
  public static final String CONFIG_MIRROR = "kubernetes.io/config.mirror";

  /** Annotations the kubelet sets itself; a change to them is not a change to the pod. */
  public static final Set<String> LOCAL = Set.of(CONFIG_SOURCE, CONFIG_SEEN, CONFIG_MIRROR);

  private Annotations() {}

  /** The source the pod's {@code config.source} annotation names, if it names one. */
  public static Optional<Source> source(Pod pod) {
    return Source.fromAnnotation(sourceAnnotation(pod));
  }

  /**
   * Whether the pod came from a file or a URL rather than the API server. As upstream's {@code
   * IsStaticPod}, any source annotation other than {@code api} counts as static.
   */
  public static boolean isStatic(Pod pod) {
    String s = sourceAnnotation(pod);
    return !s.isEmpty() && !Source.API.annotation().equals(s);
  }

  private static String sourceAnnotation(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? "" : a.getOrDefault(CONFIG_SOURCE, "");
  }

  public static boolean isMirror(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a != null && a.containsKey(CONFIG_MIRROR);
  }
}
