package io.jkubelet.agent.oom;

import io.jkubelet.agent.util.Lifecycle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An {@link OomSource} whose counters and kernel log the test sets: {@link #setCounters}, {@link
 * #kill} (which calls the listener as the kernel log's reader would), {@link #setKernelLogMissing}.
 */
public final class FakeOomSource implements OomSource, Lifecycle.Idle {
  private final Map<String, MemoryCounters> counters = new HashMap<>();
  private final List<KernelKill> kills = new ArrayList<>();
  private String missing;
  private Consumer<KernelKill> listener = k -> {};

  public synchronized void setCounters(String containerId, MemoryCounters c) {
    if (c == null) {
      counters.remove(containerId);
    } else {
      counters.put(containerId, c);
    }
  }

  /** A kill the kernel log reports now. */
  public void kill(KernelKill k) {
    Consumer<KernelKill> l;
    synchronized (this) {
      kills.add(k);
      l = listener;
    }
    l.accept(k);
  }

  public synchronized void setKernelLogMissing(String why) {
    this.missing = why;
  }

  @Override
  public synchronized Optional<MemoryCounters> counters(String podUid, String containerId) {
    return Optional.ofNullable(counters.get(containerId));
  }

  @Override
  public synchronized List<KernelKill> takeKills(String containerId) {
    List<KernelKill> out = kills.stream().filter(k -> k.inContainer(containerId)).toList();
    kills.removeAll(out);
    return out;
  }

  @Override
  public synchronized Optional<String> kernelLogMissing() {
    return Optional.ofNullable(missing);
  }

  @Override
  public synchronized void onKill(Consumer<KernelKill> listener) {
    this.listener = listener;
  }
}
