package io.jkubelet.config;

import java.nio.file.Path;

/**
 * The container log settings of upstream's KubeletConfiguration: when a container's log file is
 * rotated and how many are kept, and where the log files and their links go. The size is parsed
 * where it is used.
 */
public record ContainerLogSettings(
    @Field(
            label = "QUANTITY",
            value = "10Mi",
            zeroIsUnset = true,
            doc = "Size at which a container log file rotates")
        String containerLogMaxSize,
    @Field(value = "5", min = 2, doc = "Log files kept per container, the live one included")
        int containerLogMaxFiles,
    @Field(
            file = Field.FLAG_ONLY,
            value = "/var/log/pods",
            doc =
                "Where containers' CRI log files go, <ns>_<pod>_<uid>/<container>/<restart>.log"
                    + " (jkubelet's own, for tests and unprivileged runs)")
        Path podLogsDir,
    @Field(
            file = Field.FLAG_ONLY,
            value = "/var/log/containers",
            doc = "Where the <pod>_<ns>_<container>-<id>.log links to them go (jkubelet's own)")
        Path containerLogsDir) {

  public static final ContainerLogSettings DEFAULTS =
      Settings.defaults(ContainerLogSettings.class, false);
}
