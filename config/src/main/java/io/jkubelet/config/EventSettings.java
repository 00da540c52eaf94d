package io.jkubelet.config;

import java.time.Duration;

/**
 * The events the agent records: how fast they are written to the API server, the spam filter in
 * front of that, and their export to a sink of their own ({@link EventExport}).
 */
public record EventSettings(
    @Field(
            flag = "--event-qps",
            value = "5",
            min = 0,
            doc =
                "Events written to the API server per second at most (the event client's rate"
                    + " limit); 0: unlimited")
        int eventRecordQPS,
    @Field(
            value = "10",
            min = 0,
            zeroIsUnset = true,
            doc = "Events written at once beyond --event-qps; only with --event-qps above 0")
        int eventBurst,
    @Field(
            value = "25",
            min = 1,
            zeroIsUnset = true,
            doc =
                "jkubelet's own: the size of the event spam filter's bucket per (source, object),"
                    + " as client-go's correlator (25); Warnings and each reason's first event do"
                    + " not spend it")
        int eventSpamBurst,
    @Field(
            value = "5m",
            check = Checks.Positive.class,
            doc =
                "jkubelet's own: how long the spam filter takes to give an object one token back,"
                    + " as client-go's correlator (one per 5m)")
        Duration eventSpamRefillPeriod,
    EventExport export) {}
