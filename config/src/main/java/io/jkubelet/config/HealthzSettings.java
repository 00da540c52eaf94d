package io.jkubelet.config;

/** Where the plain-HTTP {@code /healthz} listens. */
public record HealthzSettings(
    @Field(
            value = "10248",
            min = 0,
            max = 65535,
            doc = "Port of the plain-HTTP /healthz, 0 to disable")
        int healthzPort,
    @Field(value = "127.0.0.1", zeroIsUnset = true, doc = "Address of /healthz")
        String healthzBindAddress) {}
