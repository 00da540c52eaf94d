package io.jkubelet.config;

import java.util.Map;

/**
 * The node itself: whether and how it registers its Node, its identity towards the API server (its
 * certificates), how often it reports, how it stops its pods when its host shuts down, what it asks
 * of its host (no swap, open files) and the feature gates.
 */
public record NodeSettings(
    @Field(
            value = "true",
            doc =
                "Whether the agent creates its Node in the API server. With false it waits for"
                    + " someone to create it, then writes its status and Lease, never its labels"
                    + " or taints (in a file: upstream's field since v1.22)")
        boolean registerNode,
    @Field(
            file = Field.FLAG_ONLY,
            label = "PROVIDER",
            check = Checks.CloudProvider.class,
            doc = "\"\" (none) or external (a cloud controller manager); no in-tree provider")
        String cloudProvider,
    @Field(
            file = "providerID",
            label = "ID",
            doc = "The Node's spec.providerID, set when the Node registers")
        String providerID,
    CertificateSettings certificates,
    NodeStatusSettings status,
    ShutdownSettings shutdown,
    HostSettings host,
    @Field(
            check = Checks.KnownFeatureGates.class,
            doc =
                "Upstream v1.20's feature gates; an unknown one is refused; those jkubelet does not"
                    + " honour are logged once at start (docs/configuration.md lists them)")
        Map<String, Boolean> featureGates) {

  public NodeSettings {
    featureGates = Map.copyOf(featureGates);
  }
}
