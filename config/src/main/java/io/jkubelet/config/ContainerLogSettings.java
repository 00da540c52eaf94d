package io.jkubelet.config;

import java.util.Objects;

/**
 * The container log settings of upstream's KubeletConfiguration: when a container's log file is
 * rotated and how many are kept. The size is parsed where it is used; this record only rejects
 * nulls.
 */
public record ContainerLogSettings(
    @Field(
            flag = "--container-log-max-size",
            label = "QUANTITY",
            value = "10Mi",
            zeroIsUnset = true,
            doc = "Size at which a container log file rotates")
        String containerLogMaxSize,
    @Field(
            flag = "--container-log-max-files",
            value = "5",
            min = 2,
            doc = "Log files kept per container, the live one included")
        int containerLogMaxFiles) {

  public static final ContainerLogSettings DEFAULTS =
      Settings.defaults(ContainerLogSettings.class, false);

  public ContainerLogSettings {
    Objects.requireNonNull(containerLogMaxSize, "containerLogMaxSize");
  }
}
