package io.jkubelet.config;

import java.nio.file.Path;

/**
 * What the kubelet API serves beyond pods and metrics: logs, exec, attach, port-forward and run,
 * and the node's log directory.
 */
public record DebugHandlerSettings(
    @Field(value = "true", doc = "Whether logs, exec, attach, port-forward and run are served")
        boolean enableDebuggingHandlers,
    @Field(
            doc =
                "Whether /logs/ serves the node's log directory, with the debugging handlers"
                    + " (upstream: true; here it must be asked for, as it shows the whole"
                    + " directory to anyone allowed nodes/log)")
        boolean enableSystemLogHandler,
    @Field(
            file = Field.FLAG_ONLY,
            value = "/var/log",
            doc = "The directory /logs/ serves when enableSystemLogHandler is on (jkubelet's own)")
        Path nodeLogDir) {}
