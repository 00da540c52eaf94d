package io.jkubelet.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The CNI network plugin's flags: where its configuration, binaries and cache are, and how long one
 * call may take.
 */
public record CniSettings(
    @Field(
            file = Field.FLAG_ONLY,
            value = "/etc/cni/net.d",
            doc = "The CNI configuration directory")
        Path cniConfDir,
    @Field(
            file = Field.FLAG_ONLY,
            value = "/opt/cni/bin,/usr/lib/cni",
            doc =
                "Where CNI plugin binaries are, in order (upstream's default is /opt/cni/bin;"
                    + " Debian's containernetworking-plugins, which the package recommends, are in"
                    + " /usr/lib/cni)")
        List<String> cniBinDir,
    @Field(
            file = Field.FLAG_ONLY,
            value = "/var/lib/cni/cache",
            doc = "libcni's cache: each pod's attachment")
        Path cniCacheDir,
    @Field(
            file = Field.FLAG_ONLY,
            value = "220s",
            doc = "How long one CNI plugin call may take (jkubelet's own; upstream's is 220s)")
        Duration cniExecTimeout) {}
