package io.jkubelet.agent.setup;

import io.fabric8.kubernetes.api.model.Taint;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.logs.PodLogPaths;
import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything the agent is built from, as the command line and the {@code --config} file gave it
 * (upstream's {@code KubeletFlags} and {@code KubeletConfiguration} together): parsed and checked
 * by {@code cli}, read by the composition root ({@code io.jkubelet.agent.Agent}) and nowhere else.
 *
 * @param nodeName the node's name (lowercase), from {@code --hostname-override} or the kernel's
 * @param config the KubeletConfiguration, flags overlaid
 * @param node what the Node registers with
 * @param paths where the agent keeps its files
 * @param engine the container engine and its images
 * @param subsystems the options of the subsystems that {@code cli} derives from the configuration
 *     and the flags together
 */
public record KubeletOptions(
    String nodeName,
    KubeletConfiguration config,
    KubeletOptions.Node node,
    KubeletOptions.Paths paths,
    KubeletOptions.Engine engine,
    KubeletOptions.Subsystems subsystems) {

  public KubeletOptions {
    Records.requireNonNull(KubeletOptions.class, nodeName, config, node, paths, engine, subsystems);
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException("node name must not be empty");
    }
  }

  /** The same options with other subsystem options. */
  public KubeletOptions withSubsystems(Subsystems s) {
    return new KubeletOptions(nodeName, config, node, paths, engine, s);
  }

  /** Whether the agent joins a cluster ({@code --kubeconfig}). */
  public boolean clusterMode() {
    return subsystems.certificates() != null;
  }

  public Path rootDir() {
    return paths.rootDir();
  }

  public String nodeIp() {
    return node.ip();
  }

  public String podInfraImage() {
    return engine.podInfraImage();
  }

  public Path certDir() {
    return paths.certDir();
  }

  public PodLogPaths podLogPaths() {
    return paths.podLogs();
  }

  public Path nodeLogDir() {
    return paths.nodeLogDir();
  }

  /**
   * @param ip the node's IP, or "" to detect it ({@code --node-ip})
   * @param labels added to the Node when it registers ({@code --node-labels})
   * @param taints the Node registers with ({@code --register-with-taints})
   */
  public record Node(String ip, Map<String, String> labels, List<Taint> taints) {
    public Node {
      ip = ip == null ? "" : ip;
      labels = Map.copyOf(labels);
      taints = List.copyOf(taints);
    }
  }

  /**
   * @param rootDir where pod directories and volumes live ({@code --root-dir})
   * @param certDir where the node's certificates are kept ({@code --cert-dir})
   * @param podLogs where container log files and their links go ({@code --pod-logs-dir}, {@code
   *     --container-logs-dir})
   * @param nodeLogDir the directory {@code /logs/} serves ({@code --node-log-dir})
   */
  public record Paths(Path rootDir, Path certDir, PodLogPaths podLogs, Path nodeLogDir) {
    public Paths {
      Records.requireNonNull(Paths.class, rootDir, certDir, podLogs, nodeLogDir);
    }

    /**
     * Everything under {@code rootDir}: {@code pki}, {@code logs/pods}, {@code logs/containers} and
     * {@code logs}, so that an agent embedded in a test never writes the host's {@code /var/log}.
     */
    public static Paths under(Path rootDir) {
      return new Paths(
          rootDir,
          rootDir.resolve("pki"),
          new PodLogPaths(rootDir.resolve("logs/pods"), rootDir.resolve("logs/containers")),
          rootDir.resolve("logs"));
    }
  }

  /**
   * @param dockerHost the Docker endpoint ({@code --docker-endpoint})
   * @param podInfraImage the sandbox image ({@code --pod-infra-container-image})
   * @param imageGcPeriod how often the image GC looks ({@code --image-gc-period})
   */
  public record Engine(String dockerHost, String podInfraImage, Duration imageGcPeriod) {
    public Engine {
      Records.requireNonNull(Engine.class, dockerHost, podInfraImage, imageGcPeriod);
    }
  }

  /**
   * @param network the pods' network plugin
   * @param cgroups the pods' cgroups
   * @param certificates the node's client and serving certificates and its kubeconfig; null
   *     standalone
   */
  public record Subsystems(
      NetworkOptions network, CgroupOptions cgroups, @Nullable CertificateOptions certificates) {
    public Subsystems {
      Records.requireNonNull(Subsystems.class, network, cgroups);
    }
  }
}
