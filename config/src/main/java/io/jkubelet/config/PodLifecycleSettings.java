package io.jkubelet.config;

import java.time.Duration;

/**
 * A pod's life on the node: how often it is synced again, the record of its start (jkubelet's own
 * start-up timeline) and the watch on its end (jkubelet's own {@code terminationStuckAfter}, which
 * upstream has no counterpart of).
 */
public record PodLifecycleSettings(
    @Field(
            value = "1m",
            check = Checks.Positive.class,
            doc = "Period of each pod's resync, with jitter")
        Duration syncFrequency,
    @Field(
            value = "true",
            doc =
                "jkubelet's own: record each pod's start-up timeline (a StartupTimeline event at"
                    + " its first Ready, /pods/{namespace}/{name}/timeline on the kubelet API,"
                    + " kubelet_pod_start_phase_duration_seconds, <root-dir>/pods/<uid>/timeline.json);"
                    + " false: none of it")
        boolean podStartTimeline,
    @Field(
            value = "30s",
            check = Checks.Positive.class,
            doc =
                "jkubelet's own: a pod still not gone this long after its deletion's grace period"
                    + " gets a Warning TerminationStuck naming what holds it (a container, a"
                    + " preStop hook, a volume, a runtime call), repeated at a doubling interval")
        Duration terminationStuckAfter) {}
