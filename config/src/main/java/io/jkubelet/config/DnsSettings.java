package io.jkubelet.config;

import java.util.List;

/** The DNS that pods are given: the cluster's servers and domain, and the host's resolver file. */
public record DnsSettings(
    @Field(
            label = "IP,...",
            check = Checks.IpAddresses.class,
            doc =
                "DNS servers for ClusterFirst pods; without any, such pods fall back to Default"
                    + " with a MissingClusterDNS Warning")
        List<String> clusterDNS,
    @Field(
            label = "DOMAIN",
            doc = "The cluster's DNS domain, e.g. cluster.local, for pods' search paths and FQDNs")
        String clusterDomain,
    @Field(
            label = "FILE",
            value = "/etc/resolv.conf",
            zeroIsUnset = true,
            doc = "The resolver file Default pods copy; \"\" gives them none")
        String resolvConf) {}
