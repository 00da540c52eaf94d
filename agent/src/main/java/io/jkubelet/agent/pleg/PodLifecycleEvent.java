package io.jkubelet.agent.pleg;

/** A change the PLEG saw in one container of a pod. */
public sealed interface PodLifecycleEvent {
  String podUid();

  String containerId();

  /** The container started running. */
  record ContainerStarted(String podUid, String containerId) implements PodLifecycleEvent {}

  /** The container stopped running. */
  record ContainerDied(String podUid, String containerId) implements PodLifecycleEvent {}

  /** The container is gone from the runtime. */
  record ContainerRemoved(String podUid, String containerId) implements PodLifecycleEvent {}
}
