package io.jkubelet.agent.parts;

import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.timeline.PodTimelines;
import java.util.Optional;

/**
 * The engine as the pods use it: wrapped by the network and the metrics, with its cgroups and its
 * image GC.
 *
 * @param engine the engine as the dependencies gave it
 * @param runtime the runtime the pods' parts call: the engine's, wrapped, with the calls in flight
 *     tracked outermost
 * @param cgroups the pods' cgroups
 * @param network the pods' network
 * @param imageGc the image GC; empty when it is off
 * @param timelines the pods' start-up timelines ({@link PodTimelines#NONE} with {@code
 *     podStartTimeline: false}), which the network's runtime records into as well
 */
public record PodEngine(
    Dependencies.Engine engine,
    CallsInFlight runtime,
    ContainerManager cgroups,
    PodNetwork network,
    Optional<ImageGcManager> imageGc,
    PodTimelines timelines) {

  /** The image GC as the eviction manager reclaims through it; {@code NONE} when it is off. */
  public ImageGarbageCollector imageGarbageCollector() {
    return imageGc.<ImageGarbageCollector>map(g -> g).orElse(ImageGarbageCollector.NONE);
  }
}
