package io.jkubelet.agent;

import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Everything an {@link Agent} is started with: the configuration and the flags that are not part of
 * it.
 *
 * @param nodeName the node's name (lowercase), from {@code --hostname-override} or the hostname
 * @param rootDir where pod directories and volumes live ({@code --root-dir})
 * @param podInfraImage the sandbox image ({@code --pod-infra-container-image})
 * @param dockerHost the Docker endpoint ({@code --docker-endpoint})
 * @param nodeIp the node's IP, or "" to detect it ({@code --node-ip})
 * @param config the KubeletConfiguration
 */
public record KubeletOptions(
    String nodeName,
    Path rootDir,
    String podInfraImage,
    String dockerHost,
    String nodeIp,
    KubeletConfiguration config) {
  public KubeletOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(rootDir, "rootDir");
    Objects.requireNonNull(podInfraImage, "podInfraImage");
    Objects.requireNonNull(dockerHost, "dockerHost");
    Objects.requireNonNull(config, "config");
    nodeIp = nodeIp == null ? "" : nodeIp;
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException("node name must not be empty");
    }
  }
}
