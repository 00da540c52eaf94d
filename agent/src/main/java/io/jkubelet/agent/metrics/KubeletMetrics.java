package io.jkubelet.agent.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Duration;
import java.time.Instant;

/**
 * The kubelet's metrics and the registries that serve them, as upstream's {@code
 * pkg/kubelet/metrics} (v1.20): same names, labels and buckets. One instance per agent (no global
 * registry), so tests and several agents in one JVM never share series.
 *
 * <ul>
 *   <li>{@link Endpoint#METRICS}: the kubelet's own metrics, {@code rest_client_requests_total},
 *       and jkubelet's counters (events, status writes, probe attempts) and cache bounds ({@link
 *       #caches()}) from collectors;
 *   <li>{@link Endpoint#PROBES}: {@code prober_probe_total};
 *   <li>{@link Endpoint#RESOURCE}: node, pod and container CPU and memory, as metrics-server reads
 *       them.
 * </ul>
 *
 * <p>No counter, gauge or histogram keeps exemplars, as upstream's do not: the client library's
 * sampler asks its own timer thread for every observation, and with no tracer there is never an
 * exemplar to keep.
 *
 * <p>Thread-safe: the client library's metrics are, and collectors run on the scraping thread.
 */
public final class KubeletMetrics {
  /** The text format's content type: {@code text/plain; version=0.0.4; charset=utf-8}. */
  public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  /** component-base's {@code DefBuckets} (the Prometheus Go client's). */
  static final double[] DEF_BUCKETS = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

  /** The image pull histogram's buckets, newer upstream kubelets' (v1.30). */
  static final double[] IMAGE_PULL_BUCKETS = {
    1, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600
  };

  /**
   * The start-up phases' buckets: {@link #DEF_BUCKETS}, then up to 10 minutes for pulls and init
   * containers.
   */
  static final double[] START_PHASE_BUCKETS = {
    .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600
  };

  /** The path each registry is served on. */
  public enum Endpoint {
    METRICS("/metrics"),
    PROBES("/metrics/probes"),
    RESOURCE("/metrics/resource");

    private final String path;

    Endpoint(String path) {
      this.path = path;
    }

    public String path() {
      return path;
    }
  }

  private final PrometheusRegistry main = new PrometheusRegistry();
  private final PrometheusRegistry probes = new PrometheusRegistry();
  private final PrometheusRegistry resource = new PrometheusRegistry();

  final Counter runtimeOperations;
  final Counter runtimeErrors;
  final Histogram runtimeDuration;
  final Histogram podWorkerDuration;
  final Histogram podStartDuration;
  final Histogram podStartPhaseDuration;
  final Histogram plegRelistDuration;
  final Gauge runningPods;
  final Gauge runningContainers;
  final Counter restClientRequests;
  final Histogram imagePullDuration;
  final Counter imagePullBytes;
  final Gauge imagePullsInFlight;
  private final CacheCollector caches = new CacheCollector();

  /** The metrics of the agent of node {@code nodeName}. */
  public KubeletMetrics(String nodeName) {
    gauge("kubelet_node_name", "The node's name. The count is always 1.", "node")
        .labelValues(nodeName)
        .set(1);
    runtimeOperations =
        counter(
            "kubelet_runtime_operations_total",
            "Cumulative number of runtime operations by operation type.",
            "operation_type");
    runtimeErrors =
        counter(
            "kubelet_runtime_operations_errors_total",
            "Cumulative number of runtime operation errors by operation type.",
            "operation_type");
    runtimeDuration =
        histogram(
                "kubelet_runtime_operations_duration_seconds",
                "Duration in seconds of runtime operations. Broken down by operation type.")
            .classicExponentialUpperBounds(.005, 2.5, 14)
            .labelNames("operation_type")
            .register(main);
    podWorkerDuration =
        histogram(
                "kubelet_pod_worker_duration_seconds",
                "Duration in seconds to sync a single pod. Broken down by operation type: create,"
                    + " update, or sync")
            .classicUpperBounds(DEF_BUCKETS)
            .labelNames("operation_type")
            .register(main);
    podStartDuration =
        histogram(
                "kubelet_pod_start_duration_seconds",
                "Duration in seconds for a single pod to go from pending to running.")
            .classicUpperBounds(DEF_BUCKETS)
            .register(main);
    podStartPhaseDuration =
        histogram(
                "kubelet_pod_start_phase_duration_seconds",
                "Duration in seconds of each phase of a pod's start, from its start-up timeline."
                    + " Broken down by phase.")
            .classicUpperBounds(START_PHASE_BUCKETS)
            .labelNames("phase")
            .register(main);
    plegRelistDuration =
        histogram(
                "kubelet_pleg_relist_duration_seconds",
                "Duration in seconds for relisting pods in PLEG.")
            .classicUpperBounds(DEF_BUCKETS)
            .register(main);
    runningPods = gauge("kubelet_running_pods", "Number of pods currently running");
    runningContainers =
        gauge(
            "kubelet_running_containers",
            "Number of containers currently running",
            "container_state");
    restClientRequests =
        counter(
            "rest_client_requests_total",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            "code",
            "method",
            "host");
    imagePullDuration =
        histogram(
                "kubelet_image_pull_duration_seconds",
                "Duration in seconds of the engine's image pulls, whether they succeeded or not.")
            .classicUpperBounds(IMAGE_PULL_BUCKETS)
            .register(main);
    imagePullBytes =
        counter(
            "kubelet_image_pull_bytes",
            "Bytes the engine's image pulls downloaded, from its progress stream.");
    imagePullsInFlight =
        gauge(
            "kubelet_image_pull_in_flight",
            "Image pulls running on the engine; pods waiting on the same image share one.");
    main.register(caches);
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .withoutExemplars()
        .register(main);
  }

  private Gauge gauge(String name, String help, String... labels) {
    return Gauge.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .withoutExemplars()
        .register(main);
  }

  private static Histogram.Builder histogram(String name, String help) {
    return Histogram.builder().name(name).help(help).classicOnly().withoutExemplars();
  }

  /**
   * The bounds of the agent's caches and queues on {@code /metrics} ({@code
   * jkubelet_cache_entries}, {@code jkubelet_cache_capacity}): the wiring adds its caches here.
   */
  public CacheCollector caches() {
    return caches;
  }

  /** Adds a collector to {@code /metrics}, read at every scrape. */
  public void register(MultiCollector collector) {
    main.register(collector);
  }

  /** Adds a collector to {@code /metrics/probes}. */
  public void registerProbes(MultiCollector collector) {
    probes.register(collector);
  }

  /** Adds a collector to {@code /metrics/resource}. */
  public void registerResource(MultiCollector collector) {
    resource.register(collector);
  }

  /** One scrape of an endpoint, in the text format ({@link #CONTENT_TYPE}). */
  public byte[] scrape(Endpoint endpoint) {
    return TextExposition.write(snapshots(endpoint), EscapingScheme.UNDERSCORE_ESCAPING);
  }

  /** What a scrape of an endpoint reads, before it is written. */
  MetricSnapshots snapshots(Endpoint endpoint) {
    PrometheusRegistry registry =
        switch (endpoint) {
          case METRICS -> main;
          case PROBES -> probes;
          case RESOURCE -> resource;
        };
    return registry.scrape();
  }

  /** Seconds from {@code start} to {@code end}, never negative (a clock stepped back). */
  static double seconds(Instant start, Instant end) {
    return Math.max(0, Duration.between(start, end).toNanos() / 1e9);
  }
}
