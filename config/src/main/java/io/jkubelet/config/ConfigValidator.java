package io.jkubelet.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;

/**
 * Checks that a {@link KubeletConfiguration} is usable. Run it once the configuration is complete,
 * that is after command-line flags have been overlaid on the loaded file.
 *
 * <p>Rules: {@code port} in 1..65535; {@code readOnlyPort} in 0..65535 (0 disables it); {@code
 * maxPods} and {@code nodeLeaseDurationSeconds} at least 1; every frequency greater than 0; {@code
 * eventRecordQPS}, {@code eventBurst}, {@code kubeAPIQPS} and {@code kubeAPIBurst} at least 0;
 * {@code podInfraOomScoreAdj} in -1000..1000; {@code staticPodURL}, when not empty, an absolute
 * http or https URL with a host.
 */
public final class ConfigValidator {

  private ConfigValidator() {}

  /**
   * Validates {@code config}, checking fields in record component order.
   *
   * @throws ConfigException for the first field that breaks a rule, e.g. {@code readOnlyPort: must
   *     be between 0 and 65535, got 70000}
   * @throws NullPointerException if {@code config} is null
   */
  public static void validate(KubeletConfiguration config) {
    positive("syncFrequency", config.syncFrequency());
    positive("fileCheckFrequency", config.fileCheckFrequency());
    positive("httpCheckFrequency", config.httpCheckFrequency());
    httpUrl("staticPodURL", config.staticPodURL());
    between("readOnlyPort", config.readOnlyPort(), 0, 65535);
    between("port", config.port(), 1, 65535);
    between("healthzPort", config.healthzPort(), 0, 65535);
    if (!config.authorization().mode().equals("AlwaysAllow")
        && !config.authorization().mode().equals("Webhook")) {
      throw new ConfigException(
          "authorization.mode",
          "must be AlwaysAllow or Webhook, got \"" + config.authorization().mode() + "\"");
    }
    if (config.containerLogMaxFiles() < 2) {
      throw new ConfigException(
          "containerLogMaxFiles", "must be at least 2, got " + config.containerLogMaxFiles());
    }
    atLeast("maxPods", config.maxPods(), 1);
    positive("nodeStatusUpdateFrequency", config.nodeStatusUpdateFrequency());
    positive("nodeStatusReportFrequency", config.nodeStatusReportFrequency());
    atLeast("nodeLeaseDurationSeconds", config.nodeLeaseDurationSeconds(), 1);
    atLeast("eventRecordQPS", config.eventRecordQPS(), 0);
    atLeast("eventBurst", config.eventBurst(), 0);
    atLeast("kubeAPIQPS", config.kubeAPIQPS(), 0);
    atLeast("kubeAPIBurst", config.kubeAPIBurst(), 0);
    between("podInfraOomScoreAdj", config.podInfraOomScoreAdj(), -1000, 1000);
  }

  private static void between(String field, int value, int min, int max) {
    if (value < min || value > max) {
      throw new ConfigException(field, "must be between " + min + " and " + max + ", got " + value);
    }
  }

  private static void atLeast(String field, int value, int min) {
    if (value < min) {
      throw new ConfigException(field, "must be at least " + min + ", got " + value);
    }
  }

  private static void positive(String field, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new ConfigException(field, "must be greater than 0, got " + Durations.format(value));
    }
  }

  private static void httpUrl(String field, String value) {
    if (value.isEmpty()) {
      return;
    }
    String problem = "must be an http:// or https:// URL, got \"" + value + "\"";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new ConfigException(field, problem + " (" + e.getMessage() + ")", e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new ConfigException(field, problem);
    }
  }
}
