package io.jkubelet.agent.runtime;

import java.util.Objects;

/** Identifies a pod to the runtime: its UID, and the name and namespace used in container names. */
public record PodRef(String uid, String name, String namespace) {
  public PodRef {
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
