package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.Canonical;
import java.util.HashMap;
import java.util.Map;

/**
 * The defaulting of static pods ({@code pkg/kubelet/config/common.go} {@code applyDefaults}): UID,
 * name, namespace, node name and the config annotations.
 */
public final class StaticPods {
  private StaticPods() {}

  /**
   * Defaults a pod read from {@code location} (a file path or a URL) of the {@code source} kind.
   * Mutates and returns it.
   *
   * <p>The UID, when the manifest has none, is an MD5 over the node name, the source and the pod
   * content, so the same manifest on the same node keeps its UID across restarts, and any change to
   * it makes a new pod, as upstream.
   */
  public static Pod applyDefaults(Pod pod, String location, Source source, String nodeName) {
    PodDefaults.apply(pod);
    ObjectMeta meta = pod.getMetadata();
    if (meta.getUid() == null || meta.getUid().isEmpty()) {
      String uid =
          source == Source.FILE
              ? Canonical.md5(pod, "host:" + nodeName, "file:" + location)
              : Canonical.md5(pod, "url:" + location);
      meta.setUid(uid);
    }
    meta.setName(meta.getName() + "-" + nodeName.toLowerCase(java.util.Locale.ROOT));
    if (meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
      meta.setNamespace("default");
    }
    if (meta.getSelfLink() == null || meta.getSelfLink().isEmpty()) {
      meta.setSelfLink("/api/v1/namespaces/" + meta.getNamespace() + "/pods/" + meta.getName());
    }
    pod.getSpec().setNodeName(nodeName);
    // Static pods tolerate every NoExecute taint, as upstream.
    Map<String, String> annotations =
        meta.getAnnotations() == null ? new HashMap<>() : new HashMap<>(meta.getAnnotations());
    annotations.put(Annotations.CONFIG_HASH, meta.getUid());
    annotations.put(Annotations.CONFIG_SOURCE, source.annotation());
    meta.setAnnotations(annotations);
    return pod;
  }
}
