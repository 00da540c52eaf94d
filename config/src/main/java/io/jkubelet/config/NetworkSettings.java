package io.jkubelet.config;

import java.util.Objects;

/**
 * The two pod-network fields that upstream's KubeletConfiguration carries ({@code hairpinMode} and
 * {@code podCIDR}); the network plugin's other settings are flags only, as upstream's.
 *
 * @param hairpinMode how a pod reaches itself through a Service: {@code promiscuous-bridge} (the
 *     default), {@code hairpin-veth} or {@code none}
 * @param podCIDR the pod range of a standalone node; in a cluster the Node's {@code spec.podCIDRs}
 *     win. Default ""
 */
public record NetworkSettings(String hairpinMode, String podCIDR) {
  public static final String PROMISCUOUS_BRIDGE = "promiscuous-bridge";
  public static final String HAIRPIN_VETH = "hairpin-veth";
  public static final String HAIRPIN_NONE = "none";

  public static final NetworkSettings DEFAULTS = new NetworkSettings(PROMISCUOUS_BRIDGE, "");

  public NetworkSettings {
    Objects.requireNonNull(hairpinMode, "hairpinMode");
    Objects.requireNonNull(podCIDR, "podCIDR");
  }

  public NetworkSettings withHairpinMode(String v) {
    return new NetworkSettings(v, podCIDR);
  }

  public NetworkSettings withPodCIDR(String v) {
    return new NetworkSettings(hairpinMode, v);
  }
}
