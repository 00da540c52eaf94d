package io.jkubelet.agent.pleg;

import io.jkubelet.agent.util.Lifecycle;

/**
 * The pod lifecycle event generator, as upstream's {@code pleg.PodLifecycleEventGenerator}: it is
 * started, it sends {@link PodLifecycleEvent}s to the sink it was built with, and it is healthy
 * while its relists succeed.
 */
public interface Pleg extends Lifecycle {
  /** Relists once. Tests call this directly instead of starting the timer. */
  void relist();
}
