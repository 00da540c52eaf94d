package io.jkubelet.config;

import java.util.Objects;

/**
 * The two pod-network settings that upstream's KubeletConfiguration carries ({@code hairpinMode}
 * and {@code podCIDR}); the network plugin's other settings are flags only, as upstream's.
 */
public record NetworkSettings(
    @Field(
            flag = "--hairpin-mode",
            label = "MODE",
            value = NetworkSettings.PROMISCUOUS_BRIDGE,
            oneOf = {
              NetworkSettings.PROMISCUOUS_BRIDGE,
              NetworkSettings.HAIRPIN_VETH,
              NetworkSettings.HAIRPIN_NONE
            },
            zeroIsUnset = true,
            doc = "How a pod reaches itself through a Service")
        String hairpinMode,
    @Field(
            flag = "--pod-cidr",
            label = "CIDR",
            doc = "A standalone node's pod range; a Node's spec.podCIDRs win")
        String podCIDR) {
  public static final String PROMISCUOUS_BRIDGE = "promiscuous-bridge";
  public static final String HAIRPIN_VETH = "hairpin-veth";
  public static final String HAIRPIN_NONE = "none";

  public static final NetworkSettings DEFAULTS = Settings.defaults(NetworkSettings.class, false);

  public NetworkSettings {
    Objects.requireNonNull(hairpinMode, "hairpinMode");
    Objects.requireNonNull(podCIDR, "podCIDR");
  }
}
