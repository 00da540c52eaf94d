package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.api.model.Taint;
import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.logs.PodLogPaths;
import io.jkubelet.agent.logs.RotatingLogWriter;
import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.agent.node.NodeFlags;
import io.jkubelet.agent.node.NodeName;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.config.CertificateSettings;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.ConfigLoader;
import io.jkubelet.config.ConfigValidator;
import io.jkubelet.config.FeatureGates;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.KubeletConfigurationBuilder;
import io.jkubelet.config.NetworkSettings;
import io.jkubelet.config.Setting;
import io.jkubelet.config.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration of {@code jkubelet run}, assembled from its flags: the {@code --config} file,
 * each flag given overlaid on it ({@link SettingFlags}, remembering which flag set which field, so
 * that an error names what the user typed), validated once, and the options the agent is built
 * from. {@link RunCommand} holds the flags; this class only reads them.
 */
final class RunOptions {
  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);
  private static final Pattern NODE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private RunOptions() {}

  /**
   * Loads {@code run}'s {@code --config} file, overlays its flags, and validates; errors name the
   * flag or field.
   */
  static KubeletOptions assemble(RunCommand run) {
    Path configFile = run.configFile;
    KubeletConfigurationBuilder b = KubeletConfiguration.builder();
    if (configFile != null) {
      ConfigLoader.Loaded loaded = ConfigLoader.load(configFile);
      loaded.warnings().forEach(w -> log.warn("config {}: {}", configFile, w));
      List<String> unimplemented = new ArrayList<>();
      for (String field : loaded.unimplemented()) {
        Settings.named(field)
            .filter(Setting::isIgnored)
            .ifPresentOrElse(
                s -> log.info("config {}: {}", configFile, s.ignoredNotice(field)),
                () -> unimplemented.add(field));
      }
      if (!unimplemented.isEmpty()) {
        log.info(
            "config {}: jkubelet does not implement, and ignores, these upstream fields: {}",
            configFile,
            String.join(", ", unimplemented));
      }
      b = loaded.config().toBuilder();
    }
    Map<String, String> flagOf = new HashMap<>();
    KubeletConfiguration config;
    KubeletOptions.Subsystems subsystems;
    CertificateOptions certificates;
    String dockerEndpoint;
    try {
      run.settingFlags.overlay(b, flagOf).forEach(log::info);
      config = b.build();
      ConfigValidator.validate(config);
      FeatureGates.validate(config);
      dockerEndpoint =
          config.runtime().engineEndpoint(run.dockerEndpoint, DockerRuntime.DEFAULT_HOST);
      checkSysctls(config);
      requireClientForWebhooks(config, run.kubeconfig != null);
      checkLogMaxSize(config);
      certificates = certificates(config.node().certificates(), run.kubeconfig, run.rootDir);
      subsystems =
          new KubeletOptions.Subsystems(
              network(config.pods().network()),
              new CgroupOptions(config.resources().cgroups(), CgroupOptions.DEFAULT_CGROUP_FS),
              run.kubeconfig == null ? null : certificates);
    } catch (ConfigException e) {
      throw SettingFlags.named(e, flagOf);
    }
    FeatureGates.notices(config.node().featureGates()).forEach(log::warn);
    String nodeName = nodeName(run.hostnameOverride);
    if (run.podInfraContainerImage.isBlank()) {
      throw new ConfigException("--pod-infra-container-image", "must not be empty");
    }
    if (run.nodeIp != null && !run.nodeIp.isEmpty() && !isIp(run.nodeIp)) {
      throw new ConfigException("--node-ip", "\"" + run.nodeIp + "\" is not an IP address");
    }
    return new KubeletOptions(
        nodeName,
        config,
        new KubeletOptions.Node(
            run.nodeIp,
            flag("--node-labels", run.nodeLabels, NodeFlags::parseLabels, Map.of()),
            flag(
                "--register-with-taints",
                run.registerWithTaints,
                NodeFlags::parseTaints,
                List.<Taint>of())),
        new KubeletOptions.Paths(
            run.rootDir.toAbsolutePath(),
            certificates.certDir(),
            new PodLogPaths(
                config.pods().containerLogs().podLogsDir().toAbsolutePath().normalize(),
                config.pods().containerLogs().containerLogsDir().toAbsolutePath().normalize()),
            config.server().handlers().nodeLogDir().toAbsolutePath().normalize()),
        new KubeletOptions.Engine(
            dockerEndpoint, run.podInfraContainerImage, config.resources().gc().imageGcPeriod()),
        subsystems);
  }

  /** Parses a flag's value; a parse error is a configuration error naming the flag. */
  private static <T> T flag(String name, String value, Function<String, T> parse, T none) {
    if (value == null || value.isBlank()) {
      return none;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, e.getMessage());
    }
  }

  /** The network plugin's options; an error names the flag or the field. */
  private static NetworkOptions network(NetworkSettings n) {
    String cidrs = n.podCIDR();
    return new NetworkOptions(
        n.networkPlugin().strip(),
        new NetworkOptions.Cni(
            n.cni().cniConfDir().toAbsolutePath(),
            n.cni().cniBinDir().stream().map(Path::of).toList(),
            n.cni().cniCacheDir().toAbsolutePath(),
            n.cni().cniExecTimeout()),
        n.networkPluginMtu(),
        n.hairpinMode(),
        n.nonMasqueradeCIDR(),
        cidrs.isBlank() ? List.of() : Arrays.stream(cidrs.split(",")).map(String::strip).toList());
  }

  /**
   * The client certificate's options; the certificate directory is {@code --cert-dir}, else {@code
   * <root-dir>/pki}.
   */
  private static CertificateOptions certificates(
      CertificateSettings c, Path kubeconfig, Path rootDir) {
    return CertificateOptions.of(
        kubeconfig,
        c.bootstrapKubeconfig().isEmpty() ? null : Path.of(c.bootstrapKubeconfig()),
        (c.certDir().isEmpty() ? rootDir.resolve("pki") : Path.of(c.certDir())).toAbsolutePath(),
        c.rotateCertificates(),
        c.serverTLSBootstrap());
  }

  private static void checkLogMaxSize(KubeletConfiguration config) {
    try {
      RotatingLogWriter.parseMaxSize(config.pods().containerLogs().containerLogMaxSize());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("containerLogMaxSize", e.getMessage());
    }
  }

  /** The allowed sysctls, checked as upstream checks them at start-up. */
  private static void checkSysctls(KubeletConfiguration config) {
    try {
      Sysctls.allowing(config.pods().allowedUnsafeSysctls());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("allowedUnsafeSysctls", e.getMessage());
    }
  }

  /**
   * The webhooks ask the API server, so they need cluster mode: upstream fails the same way ("no
   * client provided, cannot use webhook ...").
   */
  static void requireClientForWebhooks(KubeletConfiguration c, boolean cluster) {
    if (cluster) {
      return;
    }
    if (c.server().authentication().webhookEnabled()) {
      throw new ConfigException(
          "authentication.webhook.enabled",
          "no client provided (no --kubeconfig), cannot use webhook authentication");
    }
    if (c.server().authorization().mode().equals("Webhook")) {
      throw new ConfigException(
          "authorization.mode",
          "no client provided (no --kubeconfig), cannot use webhook authorization");
    }
  }

  /**
   * The node's name: {@code --hostname-override}, else the kernel's host name, lower-cased, as
   * upstream's (no name resolution; {@link NodeName}).
   */
  private static String nodeName(String hostnameOverride) {
    boolean overridden = hostnameOverride != null && !hostnameOverride.isEmpty();
    String flag = overridden ? "--hostname-override" : "hostname";
    String name;
    try {
      name = NodeName.of(hostnameOverride);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--hostname-override", e.getMessage() + "; set it");
    }
    if (name.isEmpty() || name.length() > 253 || !NODE_NAME.matcher(name).matches()) {
      throw new ConfigException(
          flag,
          "\""
              + name
              + "\" is not a valid node name: use lower case letters, digits, '-' and '.', starting"
              + " and ending with a letter or digit");
    }
    return name;
  }

  private static boolean isIp(String s) {
    return s.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") || s.contains(":");
  }
}
