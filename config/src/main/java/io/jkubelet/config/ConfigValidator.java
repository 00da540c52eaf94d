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
 * http or https URL with a host; each {@code clusterDNS} entry an IPv4 or IPv6 address; the image
 * GC thresholds in 0..100, the low one below the high one (upstream's rules), and no negative
 * garbage collection age.
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
    StaticPodSettings pods = config.staticPods();
    positive("fileCheckFrequency", pods.fileCheckFrequency());
    positive("httpCheckFrequency", pods.httpCheckFrequency());
    httpUrl("staticPodURL", pods.staticPodURL());
    ServerSettings server = config.server();
    between("readOnlyPort", server.readOnlyPort(), 0, 65535);
    between("port", server.port(), 1, 65535);
    between("healthzPort", server.healthzPort(), 0, 65535);
    if (!server.authorization().mode().equals("AlwaysAllow")
        && !server.authorization().mode().equals("Webhook")) {
      throw new ConfigException(
          "authorization.mode",
          "must be AlwaysAllow or Webhook, got \"" + server.authorization().mode() + "\"");
    }
    int maxFiles = config.containerLogs().containerLogMaxFiles();
    if (maxFiles < 2) {
      throw new ConfigException("containerLogMaxFiles", "must be at least 2, got " + maxFiles);
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
    for (int i = 0; i < config.clusterDNS().size(); i++) {
      ipAddress("clusterDNS", config.clusterDNS().get(i));
    }
    eventExport(config.eventExport());
    gc(config.gc());
  }

  /**
   * The garbage collectors' policy, with upstream's messages: both image thresholds in 0..100, the
   * low one below the high one, and no negative minimum age.
   */
  private static void gc(GcSettings gc) {
    int high = gc.imageGCHighThresholdPercent();
    int low = gc.imageGCLowThresholdPercent();
    if (high < 0 || high > 100) {
      throw new ConfigException(
          "imageGCHighThresholdPercent", high + " must be between 0 and 100, inclusive");
    }
    if (low < 0 || low > 100) {
      throw new ConfigException(
          "imageGCLowThresholdPercent", low + " must be between 0 and 100, inclusive");
    }
    if (low >= high) {
      throw new ConfigException(
          "imageGCLowThresholdPercent",
          low
              + " must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) "
              + high);
    }
    if (gc.imageMinimumGCAge().isNegative()) {
      throw new ConfigException("imageMinimumGCAge", "must not be negative");
    }
    if (gc.minimumContainerTtl().isNegative()) {
      throw new ConfigException(
          "minimumContainerTtl",
          "invalid minimum garbage collection age: " + Durations.format(gc.minimumContainerTtl()));
    }
  }

  /**
   * {@code eventExport}: the URL http(s) with a host (never echoed: it may hold a password), the
   * index a valid index name, {@code spoolMax} at least 1Mi and {@code fileMaxSize} at least 1Ki.
   */
  private static void eventExport(EventExport e) {
    if (!e.url().isEmpty()) {
      URI uri;
      try {
        uri = new URI(e.url());
      } catch (URISyntaxException x) {
        throw new ConfigException("eventExport.url", "must be an http:// or https:// URL", x);
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new ConfigException(
            "eventExport.url", "must be an http:// or https:// URL with a host");
      }
    }
    if (!e.index().matches("[a-z0-9][a-z0-9._-]{0,200}")) {
      throw new ConfigException(
          "eventExport.index",
          "must be lower case letters, digits, '.', '_' or '-', got \"" + e.index() + "\"");
    }
    if (bytes("eventExport.spoolMax", e.spoolMax()) < 1L << 20) {
      throw new ConfigException(
          "eventExport.spoolMax", "must be at least 1Mi, got " + e.spoolMax());
    }
    if (bytes("eventExport.fileMaxSize", e.fileMaxSize()) < 1L << 10) {
      throw new ConfigException(
          "eventExport.fileMaxSize", "must be at least 1Ki, got " + e.fileMaxSize());
    }
  }

  /**
   * A byte quantity as Kubernetes writes it: a whole number with an optional suffix {@code
   * Ki|Mi|Gi|Ti} (powers of 1024) or {@code k|M|G|T} (powers of 1000).
   *
   * @throws ConfigException naming {@code field} when it is not one
   */
  public static long bytes(String field, String quantity) {
    var m =
        java.util.regex.Pattern.compile("([0-9]{1,15})(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(quantity);
    if (!m.matches()) {
      throw new ConfigException(
          field,
          "expected a quantity of bytes such as \"1Gi\" or \"500M\", got \"" + quantity + "\"");
    }
    long n = Long.parseLong(m.group(1));
    long unit =
        switch (m.group(2) == null ? "" : m.group(2)) {
          case "Ki" -> 1L << 10;
          case "Mi" -> 1L << 20;
          case "Gi" -> 1L << 30;
          case "Ti" -> 1L << 40;
          case "k" -> 1000L;
          case "M" -> 1000_000L;
          case "G" -> 1000_000_000L;
          case "T" -> 1000_000_000_000L;
          default -> 1L;
        };
    try {
      return Math.multiplyExact(n, unit);
    } catch (ArithmeticException x) {
      throw new ConfigException(field, "\"" + quantity + "\" is too large");
    }
  }

  /** A literal IP address, as upstream's {@code net.ParseIP} accepts (no host names). */
  private static void ipAddress(String field, String value) {
    boolean v4 = value.matches("(\\d{1,3})(\\.\\d{1,3}){3}");
    boolean v6 = value.contains(":") && value.matches("[0-9A-Fa-f:.]+");
    if (v4) {
      for (String part : value.split("\\.")) {
        v4 &= Integer.parseInt(part) <= 255;
      }
    }
    if (!v4 && !v6) {
      throw new ConfigException(field, "not an IP address: \"" + value + "\"");
    }
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
