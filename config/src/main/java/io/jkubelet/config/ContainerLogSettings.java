package io.jkubelet.config;

import java.util.Objects;

/**
 * The container log fields of upstream's KubeletConfiguration: when a container's log file is
 * rotated and how many are kept. {@code containerLogMaxFiles} is checked by {@link
 * ConfigValidator}, the size where it is parsed; this record only rejects nulls.
 *
 * @param containerLogMaxSize the size at which a container's log file is rotated, a quantity;
 *     default {@code "10Mi"}
 * @param containerLogMaxFiles how many log files a container keeps, the live one included; default
 *     5
 */
public record ContainerLogSettings(String containerLogMaxSize, int containerLogMaxFiles) {

  public static final ContainerLogSettings DEFAULTS = new ContainerLogSettings("10Mi", 5);

  public ContainerLogSettings {
    Objects.requireNonNull(containerLogMaxSize, "containerLogMaxSize");
  }

  public ContainerLogSettings withContainerLogMaxSize(String v) {
    return new ContainerLogSettings(v, containerLogMaxFiles);
  }

  public ContainerLogSettings withContainerLogMaxFiles(int v) {
    return new ContainerLogSettings(containerLogMaxSize, v);
  }
}
