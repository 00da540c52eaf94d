package io.jkubelet.agent;

import io.jkubelet.agent.logs.PodLogPaths;
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
 * @param certDir where the self-signed serving certificate is kept ({@code --cert-dir}); null:
 *     {@code <rootDir>/pki}
 * @param podLogPaths where container log files and their links go ({@code --pod-logs-dir}, {@code
 *     --container-logs-dir}, whose defaults are upstream's {@code /var/log/pods} and {@code
 *     /var/log/containers}); null: {@code <rootDir>/logs/pods} and {@code
 *     <rootDir>/logs/containers}, so that an agent embedded in a test never writes the host's
 *     {@code /var/log}
 * @param nodeLogDir the directory {@code /logs/} serves ({@code --node-log-dir}, default {@code
 *     /var/log}); null: {@code <rootDir>/logs}
 */
public record KubeletOptions(
    String nodeName,
    Path rootDir,
    String podInfraImage,
    String dockerHost,
    String nodeIp,
    KubeletConfiguration config,
    Path certDir,
    PodLogPaths podLogPaths,
    Path nodeLogDir) {
  /** Options with the log directories under {@code rootDir}. */
  public KubeletOptions(
      String nodeName,
      Path rootDir,
      String podInfraImage,
      String dockerHost,
      String nodeIp,
      KubeletConfiguration config,
      Path certDir) {
    this(nodeName, rootDir, podInfraImage, dockerHost, nodeIp, config, certDir, null, null);
  }

  /** Options with the default certificate directory. */
  public KubeletOptions(
      String nodeName,
      Path rootDir,
      String podInfraImage,
      String dockerHost,
      String nodeIp,
      KubeletConfiguration config) {
    this(nodeName, rootDir, podInfraImage, dockerHost, nodeIp, config, null);
  }

  public KubeletOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(rootDir, "rootDir");
    Objects.requireNonNull(podInfraImage, "podInfraImage");
    Objects.requireNonNull(dockerHost, "dockerHost");
    Objects.requireNonNull(config, "config");
    nodeIp = nodeIp == null ? "" : nodeIp;
    certDir = certDir == null ? rootDir.resolve("pki") : certDir;
    podLogPaths =
        podLogPaths == null
            ? new PodLogPaths(rootDir.resolve("logs/pods"), rootDir.resolve("logs/containers"))
            : podLogPaths;
    nodeLogDir = nodeLogDir == null ? rootDir.resolve("logs") : nodeLogDir;
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException("node name must not be empty");
    }
  }
}
