package io.jkubelet.agent.oom;

import io.jkubelet.agent.util.Lifecycle;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** {@link OomSource#NONE}: nothing is read. */
final class NoOomSource implements OomSource, Lifecycle.Idle {
  @Override
  public Optional<MemoryCounters> counters(String podUid, String containerId) {
    return Optional.empty();
  }

  @Override
  public List<KernelKill> takeKills(String containerId) {
    return List.of();
  }

  @Override
  public Optional<String> kernelLogMissing() {
    return Optional.of("the kernel log is not read");
  }

  @Override
  public void onKill(Consumer<KernelKill> listener) {}

  @Override
  public String toString() {
    return "oom watch (off)";
  }
}
