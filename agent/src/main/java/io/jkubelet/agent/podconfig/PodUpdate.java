package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.config.Records;
import java.util.List;

/** A change to the desired pods of one source. */
public record PodUpdate(Op op, List<Pod> pods, Source source) {

  /** What happened to the pods, as upstream's {@code kubetypes.PodOperation}. */
  public enum Op {
    /** New pods. */
    ADD,
    /** Pods whose spec, labels or non-local annotations changed. */
    UPDATE,
    /** Pods that got a deletionTimestamp: stop them gracefully. */
    DELETE,
    /** Pods that vanished from their source. */
    REMOVE,
    /** Pods whose status alone changed. */
    RECONCILE
  }

  public PodUpdate {
    Records.requireNonNull(PodUpdate.class, op, pods, source);
    pods = List.copyOf(pods);
  }
}
