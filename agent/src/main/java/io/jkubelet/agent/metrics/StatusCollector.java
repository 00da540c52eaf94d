package io.jkubelet.agent.metrics;

import io.jkubelet.agent.status.ApiStatusManager;
import java.util.List;
import java.util.function.Supplier;

/**
 * The API status manager's counters, read at each scrape: {@code
 * jkubelet_status_writes_total{result}} (written, skipped, conflict, failed), {@code
 * jkubelet_status_deletes_total}, {@code jkubelet_status_forgotten_total}, {@code
 * jkubelet_status_resyncs_total} and the gauge {@code jkubelet_status_pending}.
 */
public record StatusCollector(Supplier<ApiStatusManager.Stats> stats) implements Collector {
  @Override
  public List<Family> collect() {
    ApiStatusManager.Stats s = stats.get();
    return List.of(
        Family.counter(
                "jkubelet_status_writes_total", "Pod status syncs with the API server, by result.")
            .add(s.writes(), "result", "written")
            .add(s.skips(), "result", "skipped")
            .add(s.conflicts(), "result", "conflict")
            .add(s.failures(), "result", "failed"),
        Family.counter("jkubelet_status_deletes_total", "Pods deleted from the API server.")
            .add(s.deletes()),
        Family.counter(
                "jkubelet_status_forgotten_total",
                "Pods gone from the API server whose status is no longer written.")
            .add(s.forgotten()),
        Family.counter("jkubelet_status_resyncs_total", "Periodic re-checks of every pod's status.")
            .add(s.syncs()),
        Family.gauge("jkubelet_status_pending", "Pods with a status waiting to be written.")
            .add(s.pending()));
  }
}
