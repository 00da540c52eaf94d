package io.jkubelet.config;

/**
 * The pods' network: the two settings that upstream's KubeletConfiguration carries ({@code
 * hairpinMode} and {@code podCIDR}), and the network plugin's, which are flags only, as upstream's
 * container-runtime flags.
 */
public record NetworkSettings(
    @Field(
            value = NetworkSettings.PROMISCUOUS_BRIDGE,
            oneOf = {
              NetworkSettings.PROMISCUOUS_BRIDGE,
              NetworkSettings.HAIRPIN_VETH,
              NetworkSettings.HAIRPIN_NONE
            },
            zeroIsUnset = true,
            doc = "How a pod reaches itself through a Service")
        String hairpinMode,
    @Field(doc = "A standalone node's pod range; a Node's spec.podCIDRs win") String podCIDR,
    @Field(
            file = Field.FLAG_ONLY,
            label = "NAME",
            doc =
                "cni or kubenet: a network plugin gives each pod its network; none: Docker's"
                    + " bridge")
        String networkPlugin,
    CniSettings cni,
    @Field(file = Field.FLAG_ONLY, doc = "kubenet's MTU; 0 picks the host's smallest")
        int networkPluginMtu,
    @Field(
            file = Field.FLAG_ONLY,
            value = "10.0.0.0/8",
            doc = "kubenet masquerades traffic leaving this range")
        String nonMasqueradeCIDR) {
  public static final String PROMISCUOUS_BRIDGE = "promiscuous-bridge";
  public static final String HAIRPIN_VETH = "hairpin-veth";
  public static final String HAIRPIN_NONE = "none";

  public static final NetworkSettings DEFAULTS = Settings.defaults(NetworkSettings.class, false);
}
