package io.jkubelet.config;

import java.util.List;

/**
 * The pods: how many the node runs, where static pods come from, what each pod gets (sandbox,
 * sysctls, DNS, logs, network) and how its life is followed ({@link PodLifecycleSettings}).
 */
public record PodSettings(
    StaticPodSettings staticPods,
    @Field(value = "110", min = 1, zeroIsUnset = true, doc = "The most pods this node runs")
        int maxPods,
    @Field(
            min = -1000,
            max = 1000,
            doc =
                "oom_score_adj of sandbox containers; jkubelet's own. Upstream uses -998, which"
                    + " some hosts (rootless or user-namespaced Docker) refuse: a refused value"
                    + " falls back to 0 with a warning")
        int podInfraOomScoreAdj,
    @Field(
            label = "NAME,...",
            doc =
                "Unsafe sysctls (or patterns ending in *) that pods may set, beyond the safe ones."
                    + " Each must be namespaced (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*,"
                    + " net.*)")
        List<String> allowedUnsafeSysctls,
    DnsSettings dns,
    ContainerLogSettings containerLogs,
    NetworkSettings network,
    PodLifecycleSettings lifecycle) {}
