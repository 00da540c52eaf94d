package io.jkubelet.agent.metrics;

import io.jkubelet.agent.stats.Summary;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /metrics/resource}, as upstream's {@code resourceMetricsCollector} (v1.20) and as
 * metrics-server reads it: {@code node_cpu_usage_seconds_total}, {@code
 * node_memory_working_set_bytes}, {@code container_cpu_usage_seconds_total} and {@code
 * container_memory_working_set_bytes} (labels {@code container}, {@code pod}, {@code namespace}),
 * {@code pod_cpu_usage_seconds_total} and {@code pod_memory_working_set_bytes}, each with the
 * sample's timestamp; and {@code scrape_error}, 1 when the summary could not be read.
 */
public record ResourceCollector(Supplier<Summary> provider) implements MultiCollector {
  private static final Logger log = LoggerFactory.getLogger(ResourceCollector.class);

  /** By start time, RFC 3339 at second precision (so in string order); none first. */
  private static final Comparator<Summary.PodStats> START =
      Comparator.comparing(
          Summary.PodStats::startTime, Comparator.nullsFirst(Comparator.naturalOrder()));

  @Override
  public MetricSnapshots collect() {
    Family nodeCpu =
        Family.counter(
            "node_cpu_usage_seconds_total",
            "Cumulative cpu time consumed by the node in core-seconds");
    Family nodeMemory =
        Family.gauge("node_memory_working_set_bytes", "Current working set of the node in bytes");
    Family containerCpu =
        Family.counter(
            "container_cpu_usage_seconds_total",
            "Cumulative cpu time consumed by the container in core-seconds");
    Family containerMemory =
        Family.gauge(
            "container_memory_working_set_bytes", "Current working set of the container in bytes");
    Family podCpu =
        Family.counter(
            "pod_cpu_usage_seconds_total",
            "Cumulative cpu time consumed by the pod in core-seconds");
    Family podMemory =
        Family.gauge("pod_memory_working_set_bytes", "Current working set of the pod in bytes");
    try {
      Summary s = provider.get();
      cpu(nodeCpu, s.node().cpu());
      memory(nodeMemory, s.node().memory());
      for (Summary.PodStats p : newestByName(s.pods())) {
        String pod = p.podRef().name();
        String ns = p.podRef().namespace();
        if (p.containers() != null) {
          for (Summary.ContainerStats c : p.containers()) {
            cpu(containerCpu, c.cpu(), "container", c.name(), "pod", pod, "namespace", ns);
            memory(containerMemory, c.memory(), "container", c.name(), "pod", pod, "namespace", ns);
          }
        }
        cpu(podCpu, p.cpu(), "pod", pod, "namespace", ns);
        memory(podMemory, p.memory(), "pod", pod, "namespace", ns);
      }
      // Built here, in the try: a family that cannot be built (a series given twice) is
      // scrape_error 1, not a failed scrape.
      return MetricSnapshots.of(
          nodeCpu.build(),
          nodeMemory.build(),
          containerCpu.build(),
          containerMemory.build(),
          podCpu.build(),
          podMemory.build(),
          scrapeError(0));
    } catch (RuntimeException e) {
      log.warn("metrics: cannot read the summary for /metrics/resource: {}", e.toString());
      return MetricSnapshots.of(scrapeError(1));
    }
  }

  private static MetricSnapshot scrapeError(double value) {
    return Family.gauge(
            "scrape_error", "1 if there was an error while getting container metrics, 0 otherwise")
        .add(value)
        .build();
  }

  /**
   * One pod per namespace and name, the latest started: a pod force-deleted while its containers
   * stop and made again under its name (as a StatefulSet does) is on the node twice for a while,
   * and one series given twice fails the whole scrape. Upstream's registry drops the duplicate.
   */
  private static Collection<Summary.PodStats> newestByName(List<Summary.PodStats> pods) {
    Map<String, Summary.PodStats> out = new LinkedHashMap<>();
    for (Summary.PodStats p : pods) {
      if (p.podRef() == null) {
        continue;
      }
      out.merge(
          p.podRef().namespace() + "/" + p.podRef().name(),
          p,
          (a, b) -> START.compare(b, a) > 0 ? b : a);
    }
    return out.values();
  }

  private static void cpu(Family f, Summary.CpuStats cpu, String... labels) {
    if (cpu != null && cpu.usageCoreNanoSeconds() != null) {
      f.add(cpu.usageCoreNanoSeconds() / 1e9, millis(cpu.time()), labels);
    }
  }

  private static void memory(Family f, Summary.MemoryStats m, String... labels) {
    if (m != null && m.workingSetBytes() != null) {
      f.add(m.workingSetBytes(), millis(m.time()), labels);
    }
  }

  private static long millis(String time) {
    return time == null ? 0 : Instant.parse(time).toEpochMilli();
  }
}
