package io.jkubelet.config;

import java.util.List;

/**
 * The flags upstream's kubelet registers from its libraries, klog's and cAdvisor's, which its
 * {@code --help} lists beside its own: jkubelet accepts each without effect (see {@link
 * UpstreamFields#IGNORED}).
 */
final class UpstreamGlobalFlags {
  static final String LOGS =
      "jkubelet logs text lines to stderr through logback; a logback configuration file"
          + " (JKUBELET_JAVA_OPTS=-Dlogback.configurationFile=FILE) changes where and how";
  private static final String CADVISOR =
      "a cAdvisor flag upstream registers by mistake and deprecates; jkubelet has no cAdvisor";

  private UpstreamGlobalFlags() {}

  /** klog's flags, which upstream registers on its command line. */
  static List<Setting> klog() {
    return List.of(
        Setting.ignored(null, "--add-dir-header", Type.BOOL, LOGS),
        Setting.ignored(null, "--alsologtostderr", Type.BOOL, LOGS),
        Setting.ignored(null, "--log-backtrace-at", Type.STRING, LOGS),
        Setting.ignored(null, "--log-dir", Type.STRING, LOGS),
        Setting.ignored(null, "--log-file", Type.STRING, LOGS),
        Setting.ignored(null, "--log-file-max-size", Type.LONG, LOGS),
        Setting.ignored(null, "--log-flush-frequency", Type.DURATION, LOGS),
        Setting.ignored(null, "--logtostderr", Type.BOOL, LOGS),
        Setting.ignored(null, "--one-output", Type.BOOL, LOGS),
        Setting.ignored(null, "--skip-headers", Type.BOOL, LOGS),
        Setting.ignored(null, "--skip-log-headers", Type.BOOL, LOGS),
        Setting.ignored(null, "--stderrthreshold", Type.STRING, LOGS),
        Setting.ignored(
            null,
            "--vmodule",
            Type.STRING,
            "per-file verbosity is klog's; a logback configuration file sets each logger's level"));
  }

  /** cAdvisor's flags, which upstream registers on its command line. */
  static List<Setting> cadvisor() {
    return List.of(
        Setting.ignored(null, "--docker-root", Type.STRING, "jkubelet asks Docker for its root"),
        Setting.ignored(
            null,
            "--housekeeping-interval",
            Type.DURATION,
            "jkubelet has no cAdvisor: it reads stats when they are asked for"),
        Setting.ignored(null, "--application-metrics-count-limit", Type.INT, CADVISOR),
        Setting.ignored(null, "--boot-id-file", Type.STRING, CADVISOR),
        Setting.ignored(null, "--container-hints", Type.STRING, CADVISOR),
        Setting.ignored(null, "--containerd", Type.STRING, CADVISOR),
        Setting.ignored(null, "--containerd-namespace", Type.STRING, CADVISOR),
        Setting.ignored(null, "--docker", Type.STRING, CADVISOR),
        Setting.ignored(null, "--docker-env-metadata-whitelist", Type.STRING, CADVISOR),
        Setting.ignored(null, "--docker-only", Type.BOOL, CADVISOR),
        Setting.ignored(null, "--docker-tls", Type.BOOL, CADVISOR),
        Setting.ignored(null, "--docker-tls-ca", Type.STRING, CADVISOR),
        Setting.ignored(null, "--docker-tls-cert", Type.STRING, CADVISOR),
        Setting.ignored(null, "--docker-tls-key", Type.STRING, CADVISOR),
        Setting.ignored(null, "--enable-load-reader", Type.BOOL, CADVISOR),
        Setting.ignored(null, "--event-storage-age-limit", Type.STRING, CADVISOR),
        Setting.ignored(null, "--event-storage-event-limit", Type.STRING, CADVISOR),
        Setting.ignored(null, "--global-housekeeping-interval", Type.DURATION, CADVISOR),
        Setting.ignored(null, "--log-cadvisor-usage", Type.BOOL, CADVISOR),
        Setting.ignored(null, "--machine-id-file", Type.STRING, CADVISOR),
        Setting.ignored(null, "--storage-driver-buffer-duration", Type.DURATION, CADVISOR),
        Setting.ignored(null, "--storage-driver-db", Type.STRING, CADVISOR),
        Setting.ignored(null, "--storage-driver-host", Type.STRING, CADVISOR),
        Setting.ignored(null, "--storage-driver-password", Type.STRING, CADVISOR),
        Setting.ignored(null, "--storage-driver-secure", Type.BOOL, CADVISOR),
        Setting.ignored(null, "--storage-driver-table", Type.STRING, CADVISOR),
        Setting.ignored(null, "--storage-driver-user", Type.STRING, CADVISOR));
  }
}
