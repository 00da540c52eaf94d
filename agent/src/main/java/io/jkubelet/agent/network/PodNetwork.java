package io.jkubelet.agent.network;

import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Optional;

/**
 * The pods' network, as the node's network plugin gives it (upstream's {@code
 * network.PluginManager} behind dockershim): none of its own ({@link #NONE}: the runtime's bridge),
 * CNI or kubenet.
 *
 * <p>The runtime that {@link #wrap} returns sets up each sandbox's network after starting it and
 * tears it down before stopping or removing it; it reports the plugin's IPs as the sandbox's. Pod
 * workers call it concurrently for different pods; the plugin serializes each sandbox's own calls.
 */
public interface PodNetwork extends Lifecycle {

  /** Docker's own bridge, as an empty {@code --network-plugin}: always ready. */
  PodNetwork NONE = new NoNetwork();

  /**
   * Where the Node's {@code spec.podCIDRs} are read (cluster mode); until they are known, the
   * node's own {@code podCIDR} holds. Call before {@link #start}.
   */
  void podCidrsFrom(java.util.function.Supplier<java.util.List<String>> node);

  /**
   * The runtime whose sandboxes are on this network. Call once, before {@link #start}.
   *
   * @param timelines where each sandbox's network set-up is recorded, as its pod's {@code network}
   *     phase
   */
  Runtime wrap(Runtime runtime, PodTimelines timelines);

  /**
   * Why pods cannot be put on the network now, as upstream's runtime state says it ({@code runtime
   * network not ready: NetworkReady=false reason:NetworkPluginNotReady message:docker: network
   * plugin is not ready: cni config uninitialized}), with every configuration file passed over and
   * its reason; empty when ready. Cheap: read from state that a background scan keeps.
   */
  Optional<String> networkError();
}
