package io.jkubelet.agent.metrics;

import io.jkubelet.agent.loop.LoopChannels;
import io.jkubelet.agent.loop.Select;
import io.jkubelet.agent.status.ReasonCache;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Registers the agent's caches and queues with the {@link CacheCollector} (issue 14): the sync
 * loop's channels with their fixed capacities, the reason cache with upstream's LRU bound, and the
 * state kept per pod, whose bound is the node's {@code maxPods} because housekeeping (or the pod's
 * removal) forgets it when the pod goes.
 */
public final class CacheBounds {
  private CacheBounds() {}

  public static void register(
      CacheCollector caches,
      LoopChannels channels,
      int maxPods,
      Map<String, IntSupplier> perPod,
      ReasonCache reasons) {
    List<Select.Channel<?>> loop =
        List.of(
            channels.config(),
            channels.pleg(),
            channels.probe(),
            channels.sync(),
            channels.housekeeping());
    for (Select.Channel<?> c : loop) {
      caches.add("loop_" + c.name() + "_channel", c::size, c.capacity(), c::dropped);
    }
    perPod.forEach((name, size) -> caches.add(name, size, maxPods));
    caches.add("reason_cache", reasons::size, reasons.capacity(), reasons::evictions);
  }
}
