package io.jkubelet.agent.metrics;

import io.jkubelet.agent.stats.Summary;
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
public record ResourceCollector(Supplier<Summary> provider) implements Collector {
  private static final Logger log = LoggerFactory.getLogger(ResourceCollector.class);

  /** By start time, RFC 3339 at second precision (so in string order); none first. */
  private static final Comparator<Summary.PodStats> START =
      Comparator.comparing(
          Summary.PodStats::startTime, Comparator.nullsFirst(Comparator.naturalOrder()));

  /** The cpu and memory families of one kind of object: the node, a container or a pod. */
  private record Usage(Family cpu, Family memory) {
    static Usage of(String kind) {
      return new Usage(
          Family.counter(
              kind + "_cpu_usage_seconds_total",
              "Cumulative cpu time consumed by the " + kind + " in core-seconds"),
          Family.gauge(
              kind + "_memory_working_set_bytes",
              "Current working set of the " + kind + " in bytes"));
    }

    void add(Summary.CpuStats cpu, Summary.MemoryStats memory, String... labels) {
      if (cpu != null && cpu.usageCoreNanoSeconds() != null) {
        this.cpu.add(cpu.usageCoreNanoSeconds() / 1e9, millis(cpu.time()), labels);
      }
      if (memory != null && memory.workingSetBytes() != null) {
        this.memory.add(memory.workingSetBytes(), millis(memory.time()), labels);
      }
    }
  }

  @Override
  public List<Family> collect() {
    Usage node = Usage.of("node");
    Usage container = Usage.of("container");
    Usage pod = Usage.of("pod");
    try {
      Summary s = provider.get();
      node.add(s.node().cpu(), s.node().memory());
      for (Summary.PodStats p : newestByName(s.pods())) {
        String name = p.podRef().name();
        String ns = p.podRef().namespace();
        if (p.containers() != null) {
          for (Summary.ContainerStats c : p.containers()) {
            container.add(c.cpu(), c.memory(), "container", c.name(), "pod", name, "namespace", ns);
          }
        }
        pod.add(p.cpu(), p.memory(), "pod", name, "namespace", ns);
      }
      List<Family> out =
          List.of(
              node.cpu(),
              node.memory(),
              container.cpu(),
              container.memory(),
              pod.cpu(),
              pod.memory(),
              scrapeError(0));
      // Checked here, in the try: a series given twice is scrape_error 1, not a failed scrape.
      out.forEach(Family::samples);
      return out;
    } catch (RuntimeException e) {
      log.warn("metrics: cannot read the summary for /metrics/resource: {}", e.toString());
      return List.of(scrapeError(1));
    }
  }

  private static Family scrapeError(double value) {
    return Family.gauge(
            "scrape_error", "1 if there was an error while getting container metrics, 0 otherwise")
        .add(value);
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

  private static long millis(String time) {
    return time == null ? 0 : Instant.parse(time).toEpochMilli();
  }
}
