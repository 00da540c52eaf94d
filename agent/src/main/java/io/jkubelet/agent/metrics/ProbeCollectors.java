package io.jkubelet.agent.metrics;

import io.jkubelet.agent.prober.ProbeType;
import io.jkubelet.agent.prober.ProbeWorker;
import io.jkubelet.agent.runtime.PodRef;
import java.util.EnumMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/** The prober's collectors, read from its live workers at each scrape. */
public final class ProbeCollectors {
  private ProbeCollectors() {}

  /**
   * {@code prober_probe_total{probe_type,result,container,pod,namespace,pod_uid}} for {@code
   * /metrics/probes}, as upstream: {@code probe_type} Liveness, Readiness or Startup; {@code
   * result} successful, failed or unknown. A worker's series go when it stops, as upstream deletes
   * them.
   *
   * @param pods the pod of a UID, for its name and namespace; a worker of a pod that is gone is
   *     left out
   */
  public static Collector results(
      Supplier<List<ProbeWorker.ResultCounts>> counts, Function<String, Optional<PodRef>> pods) {
    return () -> {
      Family f =
          Family.counter(
              "prober_probe_total",
              "Cumulative number of a liveness, readiness or startup probe for a container by"
                  + " result.");
      for (ProbeWorker.ResultCounts c : counts.get()) {
        Optional<PodRef> pod = pods.apply(c.key().podUid());
        if (pod.isEmpty()) {
          continue;
        }
        add(f, c, "successful", c.successful(), pod.get());
        add(f, c, "failed", c.failed(), pod.get());
        add(f, c, "unknown", c.unknown(), pod.get());
      }
      return List.of(f);
    };
  }

  private static void add(Family f, ProbeWorker.ResultCounts c, String result, long n, PodRef pod) {
    f.add(
        n,
        "probe_type",
        c.key().type().title(),
        "result",
        result,
        "container",
        c.key().containerName(),
        "pod",
        pod.name(),
        "namespace",
        pod.namespace(),
        "pod_uid",
        pod.uid());
  }

  /**
   * jkubelet's own, for {@code /metrics}, by {@code probe_type} (liveness, readiness, startup):
   * {@code jkubelet_prober_workers}, {@code jkubelet_prober_attempts_total} (attempts started by
   * live workers) and {@code jkubelet_prober_skipped_ticks_total} (ticks that found the previous
   * attempt still running). NOTE: the counters are sums over the live workers, so they drop when a
   * worker stops; Prometheus reads a drop as a counter reset.
   */
  public static Collector attempts(Supplier<List<ProbeWorker.Stats>> stats) {
    return () -> {
      EnumMap<ProbeType, long[]> byType = new EnumMap<>(ProbeType.class);
      for (ProbeType t : ProbeType.values()) {
        byType.put(t, new long[3]);
      }
      for (ProbeWorker.Stats s : stats.get()) {
        long[] sums = byType.get(s.key().type());
        sums[0]++;
        sums[1] += s.attempts();
        sums[2] += s.skipped();
      }
      Family workers = Family.gauge("jkubelet_prober_workers", "Probe workers, by probe type.");
      Family attempts =
          Family.counter(
              "jkubelet_prober_attempts_total",
              "Probe attempts started by the live workers, by probe type.");
      Family skipped =
          Family.counter(
              "jkubelet_prober_skipped_ticks_total",
              "Probe ticks skipped because the previous attempt still ran, by probe type.");
      byType.forEach(
          (t, sums) -> {
            workers.add(sums[0], "probe_type", t.label());
            attempts.add(sums[1], "probe_type", t.label());
            skipped.add(sums[2], "probe_type", t.label());
          });
      return List.of(workers, attempts, skipped);
    };
  }
}
