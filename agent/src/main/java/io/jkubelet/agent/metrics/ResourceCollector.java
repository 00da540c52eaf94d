package io.jkubelet.agent.metrics;

import io.jkubelet.agent.stats.Summary;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Instant;
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
    double error = 0;
    try {
      Summary s = provider.get();
      cpu(nodeCpu, s.node().cpu());
      memory(nodeMemory, s.node().memory());
      for (Summary.PodStats p : s.pods()) {
        String pod = p.podRef().name();
        String ns = p.podRef().namespace();
        for (Summary.ContainerStats c : p.containers()) {
          cpu(containerCpu, c.cpu(), "container", c.name(), "pod", pod, "namespace", ns);
          memory(containerMemory, c.memory(), "container", c.name(), "pod", pod, "namespace", ns);
        }
        cpu(podCpu, p.cpu(), "pod", pod, "namespace", ns);
        memory(podMemory, p.memory(), "pod", pod, "namespace", ns);
      }
    } catch (RuntimeException e) {
      error = 1;
      log.warn("metrics: cannot read the summary for /metrics/resource: {}", e.toString());
    }
    return MetricSnapshots.of(
        nodeCpu.build(),
        nodeMemory.build(),
        containerCpu.build(),
        containerMemory.build(),
        podCpu.build(),
        podMemory.build(),
        Family.gauge(
                "scrape_error",
                "1 if there was an error while getting container metrics, 0 otherwise")
            .add(error)
            .build());
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
