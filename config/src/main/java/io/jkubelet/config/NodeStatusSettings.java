package io.jkubelet.config;

import java.time.Duration;

/**
 * How often the node tells the API server it is there: its status, computed and posted, and its
 * heartbeat Lease.
 */
public record NodeStatusSettings(
    @Field(
            value = "10s",
            check = Checks.Positive.class,
            doc =
                "How often the node status is computed, and posted if it changed (the Lease is"
                    + " renewed every quarter of nodeLeaseDurationSeconds, as upstream's)")
        Duration nodeStatusUpdateFrequency,
    @Field(
            flag = Field.NO_FLAG,
            value = "5m",
            check = Checks.Positive.class,
            doc =
                "How often the node status is posted even if unchanged; in a file, it follows"
                    + " nodeStatusUpdateFrequency when only that is set")
        Duration nodeStatusReportFrequency,
    @Field(
            flag = Field.NO_FLAG,
            value = "40",
            min = 1,
            zeroIsUnset = true,
            doc =
                "The duration of the node's heartbeat Lease, in seconds; it is renewed every"
                    + " quarter of it")
        int nodeLeaseDurationSeconds) {}
