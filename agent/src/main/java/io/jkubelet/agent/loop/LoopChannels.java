package io.jkubelet.agent.loop;

import io.jkubelet.agent.pleg.PodLifecycleEvent;
import io.jkubelet.agent.podconfig.PodUpdate;
import io.jkubelet.agent.prober.ProberEvent;
import java.time.Instant;

/**
 * The sync loop's input channels, in the order the {@link Select} polls them: pod config, PLEG
 * events, probe results, and the sync and housekeeping ticks (capacity 1: a tick that finds the
 * last one unread is dropped, as a Go ticker drops it).
 */
public record LoopChannels(
    Select select,
    Select.Channel<PodUpdate> config,
    Select.Channel<PodLifecycleEvent> pleg,
    Select.Channel<ProberEvent> probe,
    Select.Channel<Instant> sync,
    Select.Channel<Instant> housekeeping) {
  static final int CONFIG_CAPACITY = 50;
  static final int PLEG_CAPACITY = 1000;
  static final int PROBE_CAPACITY = 1000;

  /** A new select with its five channels. */
  public static LoopChannels create() {
    Select s = new Select();
    return new LoopChannels(
        s,
        s.channel("config", CONFIG_CAPACITY, LoopInput.Config::new),
        s.channel("pleg", PLEG_CAPACITY, LoopInput.Pleg::new),
        s.channel("probe", PROBE_CAPACITY, LoopInput.Probe::new),
        s.channel("sync", 1, LoopInput.SyncTick::new),
        s.channel("housekeeping", 1, LoopInput.HousekeepingTick::new));
  }
}
