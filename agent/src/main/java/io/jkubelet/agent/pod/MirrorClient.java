package io.jkubelet.agent.pod;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.Errors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and deletes mirror pods: the API server's read-only copies of static pods, so that {@code
 * kubectl get pods} shows them. A mirror carries {@code kubernetes.io/config.mirror=<hash>} and is
 * owned by the Node, so it goes away with it. Thread-safe (the client is).
 */
public final class MirrorClient {
  private static final Logger log = LoggerFactory.getLogger(MirrorClient.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final Supplier<String> nodeUid;

  public MirrorClient(KubernetesClient client, String nodeName, Supplier<String> nodeUid) {
    this.client = client;
    this.nodeName = nodeName;
    this.nodeUid = nodeUid;
  }

  /** The mirror of a static pod: its spec and metadata, with the mirror annotation. */
  Pod mirrorOf(Pod staticPod) {
    ObjectMeta src = staticPod.getMetadata();
    Map<String, String> annotations =
        src.getAnnotations() == null ? new HashMap<>() : new HashMap<>(src.getAnnotations());
    annotations.put(
        Annotations.CONFIG_MIRROR, annotations.getOrDefault(Annotations.CONFIG_HASH, src.getUid()));
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(src.getName())
            .withNamespace(src.getNamespace())
            .withLabels(src.getLabels())
            .withAnnotations(annotations)
            .endMetadata()
            .withSpec(new PodBuilder(staticPod).build().getSpec());
    String uid = nodeUid.get();
    if (uid != null && !uid.isEmpty()) {
      b.editMetadata()
          .withOwnerReferences(
              List.of(
                  new OwnerReferenceBuilder()
                      .withApiVersion("v1")
                      .withKind("Node")
                      .withName(nodeName)
                      .withUid(uid)
                      .withController(true)
                      .build()))
          .endMetadata();
    }
    return b.build();
  }

  /**
   * Creates the mirror pod; returns whether it exists now. None is created while the Node is not
   * known (not registered yet, or with {@code registerNode: false} not created by anyone): as
   * upstream's {@code CreateMirrorPod} ("failed to get node UID"), since the mirror must be owned
   * by its Node, which the NodeRestriction admission plugin enforces.
   */
  public boolean create(Pod staticPod) {
    String uid = nodeUid.get();
    if (uid == null || uid.isEmpty()) {
      log.debug(
          "Mirror pods: the mirror of {} waits for node {} to exist",
          PodConfig.fullName(staticPod),
          nodeName);
      return false;
    }
    try {
      client
          .pods()
          .inNamespace(staticPod.getMetadata().getNamespace())
          .resource(mirrorOf(staticPod))
          .create();
      log.info("Mirror pods: created the mirror of {}", PodConfig.fullName(staticPod));
      return true;
    } catch (KubernetesClientException e) {
      if (Errors.isConflict(e)) {
        return true; // the informer has not shown it yet
      }
      log.warn(
          "Mirror pods: cannot create the mirror of {}: {}",
          PodConfig.fullName(staticPod),
          e.getMessage());
      return false;
    }
  }

  /** Deletes a mirror pod (grace 0, precondition on its UID). */
  public void delete(Pod mirror) {
    try {
      client
          .pods()
          .inNamespace(mirror.getMetadata().getNamespace())
          .withName(mirror.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
      log.info("Mirror pods: deleted the mirror {}", PodConfig.fullName(mirror));
    } catch (KubernetesClientException e) {
      if (!Errors.isNotFound(e)) {
        log.warn("Mirror pods: cannot delete {}: {}", PodConfig.fullName(mirror), e.getMessage());
      }
    }
  }

  /** Whether the mirror was made from this version of the static pod. */
  public static boolean matches(Pod mirror, Pod staticPod) {
    Map<String, String> m = mirror.getMetadata().getAnnotations();
    Map<String, String> s = staticPod.getMetadata().getAnnotations();
    return m != null
        && s != null
        && m.getOrDefault(Annotations.CONFIG_MIRROR, "").equals(s.get(Annotations.CONFIG_HASH));
  }
}
