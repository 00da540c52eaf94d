package io.jkubelet.agent.runtime;

import io.jkubelet.config.Records;

/** Identifies a pod to the runtime: its UID, and the name and namespace used in container names. */
public record PodRef(String uid, String name, String namespace) {
  public PodRef {
    Records.requireNonNull(PodRef.class, uid, name, namespace);
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
