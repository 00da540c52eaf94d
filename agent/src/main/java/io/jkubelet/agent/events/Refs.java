package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;

/** Builds involved-object references for pods, their containers and the node. */
public final class Refs {
  private Refs() {}

  public static ObjectReference pod(Pod pod) {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .withUid(pod.getMetadata().getUid())
        .withResourceVersion(pod.getMetadata().getResourceVersion())
        .build();
  }

  /** A pod known by its namespace, name and UID only, as the runtime knows it. */
  public static ObjectReference pod(String namespace, String name, String uid) {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .build();
  }

  /** A container of the pod: {@code spec.containers{name}} or {@code spec.initContainers{name}}. */
  public static ObjectReference container(Pod pod, String container, boolean init) {
    ObjectReference ref = pod(pod);
    ref.setFieldPath((init ? "spec.initContainers{" : "spec.containers{") + container + "}");
    return ref;
  }

  /** The node: upstream sets {@code uid} to the node's name. */
  public static ObjectReference node(String nodeName) {
    return new ObjectReferenceBuilder()
        .withKind("Node")
        .withName(nodeName)
        .withUid(nodeName)
        .build();
  }
}
