package io.jkubelet.agent.cli;

import io.jkubelet.agent.KubeletOptions;
import io.jkubelet.agent.logs.RotatingLogWriter;
import io.jkubelet.agent.node.NodeFlags;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.ConfigLoader;
import io.jkubelet.config.ConfigValidator;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration of {@code jkubelet run}, assembled from its flags: the {@code --config} file,
 * each flag given overlaid on it (remembering which flag set which field, so that an error names
 * what the user typed), validated once, and the options the agent is built from. {@link RunCommand}
 * holds the flags; this class only reads them.
 */
final class RunOptions {
  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);
  private static final Pattern NODE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private RunOptions() {}

  /**
   * Loads {@code run}'s {@code --config} file, overlays its flags, and validates; errors name the
   * flag or field. Sets {@code run}'s network, cgroup and certificate options on the way.
   */
  static KubeletOptions assemble(RunCommand run) {
    Path configFile = run.configFile;
    KubeletConfigurationBuilder b = KubeletConfiguration.builder();
    if (configFile != null) {
      ConfigLoader.Loaded loaded = ConfigLoader.load(configFile);
      loaded.warnings().forEach(w -> log.warn("config {}: {}", configFile, w));
      if (!loaded.unimplemented().isEmpty()) {
        log.info(
            "config {}: jkubelet does not implement, and ignores, these upstream fields: {}",
            configFile,
            String.join(", ", loaded.unimplemented()));
      }
      b = loaded.config().toBuilder();
    }
    Map<String, String> flagOf = new HashMap<>();
    KubeletConfigurationBuilder cfg = b;
    RunCommand.overlay(
        flagOf,
        run.podManifestPath,
        "staticPodPath",
        "--pod-manifest-path",
        v -> cfg.staticPods(cfg.staticPods().withStaticPodPath(v)));
    RunCommand.overlay(
        flagOf,
        run.readOnlyPort,
        "readOnlyPort",
        "--read-only-port",
        v -> cfg.server(cfg.server().withReadOnlyPort(v)));
    RunCommand.overlay(
        flagOf, run.address, "address", "--address", v -> cfg.server(cfg.server().withAddress(v)));
    RunCommand.overlay(
        flagOf,
        run.podInfraOomScoreAdj,
        "podInfraOomScoreAdj",
        "--pod-infra-oom-score-adj",
        cfg::podInfraOomScoreAdj);
    RunCommand.overlay(
        flagOf, run.syncFrequency, "syncFrequency", "--sync-frequency", cfg::syncFrequency);
    RunCommand.overlay(
        flagOf,
        run.fileCheckFrequency,
        "fileCheckFrequency",
        "--file-check-frequency",
        v -> cfg.staticPods(cfg.staticPods().withFileCheckFrequency(v)));
    RunCommand.overlay(flagOf, run.maxPods, "maxPods", "--max-pods", cfg::maxPods);
    RunCommand.overlay(
        flagOf,
        run.manifestUrl,
        "staticPodURL",
        "--manifest-url",
        v -> cfg.staticPods(cfg.staticPods().withStaticPodURL(v)));
    RunCommand.overlay(
        flagOf,
        run.manifestUrlHeaders == null ? null : headers(run.manifestUrlHeaders),
        "staticPodURLHeader",
        "--manifest-url-header",
        v -> cfg.staticPods(cfg.staticPods().withStaticPodURLHeader(v)));
    RunCommand.overlay(
        flagOf,
        run.httpCheckFrequency,
        "httpCheckFrequency",
        "--http-check-frequency",
        v -> cfg.staticPods(cfg.staticPods().withHttpCheckFrequency(v)));
    run.podFlags.overlay(cfg, flagOf);
    run.exportFlags.overlay(cfg, flagOf);
    run.serverFlags.overlay(cfg, flagOf);
    run.networkFlags.overlay(cfg, flagOf);
    run.resourceFlags.overlay(cfg, flagOf);
    run.evictionFlags.overlay(cfg, flagOf);
    run.certificateFlags.overlay(cfg, flagOf);
    run.gcFlags.overlay(cfg, flagOf);
    KubeletConfiguration config = b.build();
    KubeletOptions.Subsystems subsystems;
    try {
      ConfigValidator.validate(config);
      PodFlags.checkSysctls(config);
      ServerFlags.requireClientForWebhooks(config, run.kubeconfig != null);
      checkLogMaxSize(config);
      // Checked standalone too (--bootstrap-kubeconfig needs --kubeconfig), kept in cluster mode.
      var certificates =
          run.certificateFlags.options(config, run.kubeconfig, run.rootDir, flagOf);
      subsystems =
          new KubeletOptions.Subsystems(
              run.networkFlags.options(config, flagOf),
              ResourceFlags.options(config, flagOf),
              run.kubeconfig == null ? null : certificates);
    } catch (ConfigException e) {
      String flag = flagOf.get(e.field());
      throw flag == null ? e : new ConfigException(flag, e.problem(), e);
    }
    String nodeName = nodeName(run.hostnameOverride);
    if (run.podInfraContainerImage.isBlank()) {
      throw new ConfigException("--pod-infra-container-image", "must not be empty");
    }
    if (run.nodeIp != null && !run.nodeIp.isEmpty() && !isIp(run.nodeIp)) {
      throw new ConfigException("--node-ip", "\"" + run.nodeIp + "\" is not an IP address");
    }
    Path rootDir = run.rootDir.toAbsolutePath();
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
                List.of())),
        new KubeletOptions.Paths(
            rootDir,
            run.certificateFlags.certDir(run.rootDir),
            run.logFlags.podLogPaths(),
            run.logFlags.nodeLogDir()),
        new KubeletOptions.Engine(
            run.dockerEndpoint, run.podInfraContainerImage, run.gcFlags.imageGcPeriod()),
        subsystems);
  }

  /** Parses a flag's value; a parse error is a configuration error naming the flag. */
  private static <T> T flag(
      String name, String value, java.util.function.Function<String, T> parse, T none) {
    if (value == null || value.isBlank()) {
      return none;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, e.getMessage());
    }
  }

  private static void checkLogMaxSize(KubeletConfiguration config) {
    try {
      RotatingLogWriter.parseMaxSize(config.containerLogs().containerLogMaxSize());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("containerLogMaxSize", e.getMessage());
    }
  }

  /** {@code Name:value} pairs into a header map; a repeated name keeps every value. */
  static Map<String, List<String>> headers(List<String> pairs) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String pair : pairs) {
      int colon = pair.indexOf(':');
      if (colon <= 0) {
        throw new ConfigException(
            "--manifest-url-header", "\"" + pair + "\" is not of the form 'Name:value'");
      }
      out.computeIfAbsent(pair.substring(0, colon).trim(), k -> new ArrayList<>())
          .add(pair.substring(colon + 1).trim());
    }
    return out;
  }

  private static String nodeName(String hostnameOverride) {
    String name;
    String flag = "--hostname-override";
    if (hostnameOverride != null) {
      name = hostnameOverride.trim().toLowerCase(Locale.ROOT);
    } else {
      flag = "hostname";
      try {
        name = InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
      } catch (UnknownHostException e) {
        throw new ConfigException(
            "--hostname-override", "cannot read this host's name (" + e.getMessage() + "); set it");
      }
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
