package io.jkubelet.agent.nodeshutdown;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Optional;

/** {@link NodeShutdownManager#NONE}: graceful shutdown is off, so the node never shuts down. */
final class NoShutdown implements NodeShutdownManager, Lifecycle.Idle {
  @Override
  public Optional<String> shutdownStatus() {
    return Optional.empty();
  }

  @Override
  public Optional<PodAdmitter.Refusal> admit(Pod pod) {
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "node shutdown manager (off)";
  }
}
