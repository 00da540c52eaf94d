package io.jkubelet.agent.runtime;

/** The lifecycle state of a runtime container, as the CRI names it. */
public enum ContainerState {
  CREATED,
  RUNNING,
  EXITED,
  UNKNOWN
}
