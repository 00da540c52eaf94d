package io.jkubelet.agent.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
 * <p>The metrics are jkubelet's own ({@link Counter}, {@link Gauge}, {@link Histogram}), and a
 * scrape writes each family's text straight from them and from the collectors, with no model of the
 * scrape in between (performance.md: the Prometheus Java client's snapshots were most of a scrape's
 * cost while the code was still interpreted, the first minutes or hours after a start).
 *
 * <p>Thread-safe: the metrics are, and collectors run on the scraping thread.
 */
public final class KubeletMetrics {
  /** The text format's content type: {@code text/plain; version=0.0.4; charset=utf-8}. */
  public static final String CONTENT_TYPE = Exposition.CONTENT_TYPE;

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

  private final List<Collector> main = new CopyOnWriteArrayList<>();
  private final List<Collector> probes = new CopyOnWriteArrayList<>();
  private final List<Collector> resource = new CopyOnWriteArrayList<>();

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
            "Duration in seconds of runtime operations. Broken down by operation type.",
            Histogram.exponentialBounds(.005, 2.5, 14),
            "operation_type");
    podWorkerDuration =
        histogram(
            "kubelet_pod_worker_duration_seconds",
            "Duration in seconds to sync a single pod. Broken down by operation type: create,"
                + " update, or sync",
            DEF_BUCKETS,
            "operation_type");
    podStartDuration =
        histogram(
            "kubelet_pod_start_duration_seconds",
            "Duration in seconds for a single pod to go from pending to running.",
            DEF_BUCKETS);
    podStartPhaseDuration =
        histogram(
            "kubelet_pod_start_phase_duration_seconds",
            "Duration in seconds of each phase of a pod's start, from its start-up timeline."
                + " Broken down by phase.",
            START_PHASE_BUCKETS,
            "phase");
    plegRelistDuration =
        histogram(
            "kubelet_pleg_relist_duration_seconds",
            "Duration in seconds for relisting pods in PLEG.",
            DEF_BUCKETS);
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
            "Duration in seconds of the engine's image pulls, whether they succeeded or not.",
            IMAGE_PULL_BUCKETS);
    imagePullBytes =
        counter(
            "kubelet_image_pull_bytes",
            "Bytes the engine's image pulls downloaded, from its progress stream.");
    imagePullsInFlight =
        gauge(
            "kubelet_image_pull_in_flight",
            "Image pulls running on the engine; pods waiting on the same image share one.");
    main.add(caches);
  }

  private Counter counter(String name, String help, String... labels) {
    return registered(Counter.of(name, help, labels));
  }

  private Gauge gauge(String name, String help, String... labels) {
    return registered(Gauge.of(name, help, labels));
  }

  private Histogram histogram(String name, String help, double[] bounds, String... labels) {
    return registered(Histogram.of(name, help, bounds, labels));
  }

  private <M extends Collector> M registered(M metric) {
    main.add(metric);
    return metric;
  }

  /**
   * The bounds of the agent's caches and queues on {@code /metrics} ({@code
   * jkubelet_cache_entries}, {@code jkubelet_cache_capacity}): the wiring adds its caches here.
   */
  public CacheCollector caches() {
    return caches;
  }

  /** Adds a collector to {@code /metrics}, read at every scrape. */
  public void register(Collector collector) {
    main.add(collector);
  }

  /** Adds a collector to {@code /metrics/probes}. */
  public void registerProbes(Collector collector) {
    probes.add(collector);
  }

  /** Adds a collector to {@code /metrics/resource}. */
  public void registerResource(Collector collector) {
    resource.add(collector);
  }

  /** One scrape of an endpoint, in the text format ({@link #CONTENT_TYPE}). */
  public byte[] scrape(Endpoint endpoint) {
    List<Collector> collectors =
        switch (endpoint) {
          case METRICS -> main;
          case PROBES -> probes;
          case RESOURCE -> resource;
        };
    List<Family> families = new ArrayList<>();
    for (Collector c : collectors) {
      families.addAll(c.collect());
    }
    return Exposition.write(families);
  }

  /** Seconds from {@code start} to {@code end}, never negative (a clock stepped back). */
  static double seconds(Instant start, Instant end) {
    return Math.max(0, Duration.between(start, end).toNanos() / 1e9);
  }
}
