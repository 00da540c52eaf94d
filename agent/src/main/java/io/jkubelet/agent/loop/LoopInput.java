package io.jkubelet.agent.loop;

import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.prober.ProberEvent;
import java.time.Instant;

/** One input of the sync loop: what {@code syncLoopIteration} selects on upstream. */
public sealed interface LoopInput {
  /** A merged change from the pod sources. */
  record Config(PodUpdate update) implements LoopInput {}

  /** A container change the PLEG saw. */
  record Pleg(PodLifecycleEvent event) implements LoopInput {}

  /** A probe's published result changed: sync the pod now, whatever the probe. */
  record Probe(ProberEvent event) implements LoopInput {}

  /** Time to sync pods that are due for their periodic resync or a retry. */
  record SyncTick(Instant at) implements LoopInput {}

  /** Time for housekeeping: orphans, dead containers. */
  record HousekeepingTick(Instant at) implements LoopInput {}
}
