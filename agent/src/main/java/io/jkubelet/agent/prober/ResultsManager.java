package io.jkubelet.agent.prober;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The latest published result per (container id, probe type), as upstream {@code results.Manager}
 * (one manager for all three types here). Each change is published to a consumer, the sync loop
 * later.
 *
 * <p>Thread-safe: {@code this} guards {@link #results}, and changes are published while holding it
 * so that the consumer sees them in order. NOTE: the consumer must not block or call back into this
 * manager from another thread; hand the event to a queue.
 */
public final class ResultsManager {
  private record Key(String containerId, ProbeType type) {}

  private final Map<Key, ProbeResult> results = new HashMap<>();
  private final Consumer<ProberEvent> updates;

  public ResultsManager(Consumer<ProberEvent> updates) {
    this.updates = Objects.requireNonNull(updates, "updates");
  }

  /** The latest result of a probe of a container, if any was set. */
  public synchronized Optional<ProbeResult> get(String containerId, ProbeType type) {
    return Optional.ofNullable(results.get(new Key(containerId, type)));
  }

  /**
   * Sets the result of a probe of a container, and publishes it when it changed.
   *
   * @return whether it changed
   */
  public synchronized boolean set(
      String podUid, String containerName, String containerId, ProbeType type, ProbeResult result) {
    Objects.requireNonNull(result, "result");
    ProbeResult prev = results.put(new Key(containerId, type), result);
    if (prev == result) {
      return false;
    }
    updates.accept(new ProberEvent.ResultChange(podUid, containerName, containerId, type, result));
    return true;
  }

  /** Forgets the result of a probe of a container; publishes nothing. */
  public synchronized void remove(String containerId, ProbeType type) {
    results.remove(new Key(containerId, type));
  }
}
