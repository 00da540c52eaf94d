package io.jkubelet.agent.network;

import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.util.Lifecycle;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** {@link PodNetwork#NONE}: Docker's own bridge, always ready. Stateless. */
final class NoNetwork implements PodNetwork, Lifecycle.Idle {
  @Override
  public Runtime wrap(Runtime runtime, io.jkubelet.agent.timeline.PodTimelines timelines) {
    return runtime;
  }

  @Override
  public Optional<String> networkError() {
    return Optional.empty();
  }

  @Override
  public void podCidrsFrom(Supplier<List<String>> node) {}
}
