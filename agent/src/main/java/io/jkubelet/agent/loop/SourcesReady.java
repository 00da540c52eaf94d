package io.jkubelet.agent.loop;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Whether every pod source has sent its first set and the sync loop has handled it. Until then
 * housekeeping does not run and container GC counts no pod as deleted, so nothing is killed or
 * removed for being absent from the pod manager.
 *
 * <p>Upstream's {@code sourcesReady} is the pod config's alone: a source counts once its first set
 * is merged, though its ADD may still wait in the loop's channel. On a slow host that window is
 * wide: on the operator's-machine bed (29 Nov, a TCG guest) jkubelet restarted under systemd took a
 * housekeeping tick before the file source's ADD, and killed every pod it was to adopt as "not
 * desired", to start each again in a new sandbox.
 *
 * <p>Set once, by {@link #check} on the loop's thread: the pod config has seen every source (it
 * marks a source only after that source's updates are in the channel) and the channel holds none of
 * them, so the loop, one thread, has taken and handled each. Read from any thread.
 */
public final class SourcesReady implements BooleanSupplier {
  private final BooleanSupplier seenAllSources;
  private final IntSupplier pendingUpdates;
  private volatile boolean ready;

  /**
   * @param seenAllSources whether the pod config has merged every source's first set
   * @param pendingUpdates how many pod updates wait in the loop's channel
   */
  public SourcesReady(BooleanSupplier seenAllSources, IntSupplier pendingUpdates) {
    this.seenAllSources = seenAllSources;
    this.pendingUpdates = pendingUpdates;
  }

  /** On the loop's thread only: sets the latch when it may be set, and returns it. */
  boolean check() {
    if (!ready && seenAllSources.getAsBoolean() && pendingUpdates.getAsInt() == 0) {
      ready = true;
    }
    return ready;
  }

  @Override
  public boolean getAsBoolean() {
    return ready;
  }
}
