package io.jkubelet.agent.runtime;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Container names and {@code io.kubernetes.*} labels, as dockershim writes them, so that tools that
 * know the upstream kubelet on Docker find their way, and so that jkubelet can adopt what an
 * earlier run of itself created.
 */
public final class Labels {
  public static final String POD_NAME = "io.kubernetes.pod.name";
  public static final String POD_NAMESPACE = "io.kubernetes.pod.namespace";
  public static final String POD_UID = "io.kubernetes.pod.uid";
  public static final String CONTAINER_NAME = "io.kubernetes.container.name";
  public static final String DOCKER_TYPE = "io.kubernetes.docker.type";
  public static final String SANDBOX_ID = "io.kubernetes.sandbox.id";
  public static final String CONTAINER_HASH = "io.kubernetes.container.hash";
  public static final String RESTART_COUNT = "io.kubernetes.container.restartCount";
  public static final String TERMINATION_MESSAGE_PATH =
      "io.kubernetes.container.terminationMessagePath";
  public static final String TERMINATION_MESSAGE_POLICY =
      "io.kubernetes.container.terminationMessagePolicy";
  public static final String TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";

  /** jkubelet's own: "init" or "app", so init containers are told apart without the pod spec. */
  public static final String CONTAINER_KIND = "io.jkubelet.container.kind";

  /**
   * jkubelet's own, on everything it creates: the node's name. An agent lists only containers with
   * its own node's label, so agents (and test runs) that share an engine leave each other's
   * containers alone.
   */
  public static final String NODE = "io.jkubelet.node";

  /** jkubelet's own, on sandboxes: "true" when the pod uses the host's network namespace. */
  public static final String HOST_NETWORK = "io.jkubelet.pod.hostNetwork";

  public static final String TYPE_SANDBOX = "podsandbox";
  public static final String TYPE_CONTAINER = "container";

  /** The container name dockershim gives the sandbox. */
  public static final String POD_CONTAINER_NAME = "POD";

  private static final String PREFIX = "k8s";

  private Labels() {}

  /** {@code k8s_POD_<pod>_<ns>_<uid>_<attempt>}. */
  public static String sandboxName(PodRef pod, int attempt) {
    return String.join(
        "_",
        PREFIX,
        POD_CONTAINER_NAME,
        pod.name(),
        pod.namespace(),
        pod.uid(),
        Integer.toString(attempt));
  }

  /** {@code k8s_<container>_<pod>_<ns>_<uid>_<restartCount>}. */
  public static String containerName(PodRef pod, String container, int restartCount) {
    return String.join(
        "_",
        PREFIX,
        container,
        pod.name(),
        pod.namespace(),
        pod.uid(),
        Integer.toString(restartCount));
  }

  /** The labels every container of a pod carries. */
  public static Map<String, String> podLabels(PodRef pod, String containerName, String dockerType) {
    Map<String, String> labels = new HashMap<>();
    labels.put(POD_NAME, pod.name());
    labels.put(POD_NAMESPACE, pod.namespace());
    labels.put(POD_UID, pod.uid());
    labels.put(CONTAINER_NAME, containerName);
    labels.put(DOCKER_TYPE, dockerType);
    return labels;
  }

  /** The pod a container's labels name, if it was created by a kubelet. */
  public static Optional<PodRef> podOf(Map<String, String> labels) {
    if (labels == null) {
      return Optional.empty();
    }
    String uid = labels.get(POD_UID);
    if (uid == null || uid.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new PodRef(uid, labels.getOrDefault(POD_NAME, ""), labels.getOrDefault(POD_NAMESPACE, "")));
  }

  /** The attempt or restart count: the last {@code _}-separated field of a container name. */
  public static int trailingNumber(String dockerName) {
    String name = dockerName.startsWith("/") ? dockerName.substring(1) : dockerName;
    int i = name.lastIndexOf('_');
    try {
      return i < 0 ? 0 : Integer.parseInt(name.substring(i + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** An integer label, or the fallback when it is absent or malformed. */
  public static int intLabel(Map<String, String> labels, String key, int fallback) {
    String v = labels == null ? null : labels.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
