package io.jkubelet.config;

/** What the agent asks of its host when it starts: no swap, and enough open files. */
public record HostSettings(
    @Field(
            value = "true",
            doc = "Refuse to start when the host has swap on, as upstream's container manager does")
        boolean failSwapOn,
    @Field(
            value = "1000000",
            zeroIsUnset = true,
            check = Checks.NotNegativeNumber.class,
            doc = "The agent's limit of open files (RLIMIT_NOFILE), set at start")
        long maxOpenFiles) {}
