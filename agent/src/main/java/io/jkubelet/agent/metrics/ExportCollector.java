package io.jkubelet.agent.metrics;

import io.jkubelet.agent.export.BulkExporter;
import io.jkubelet.agent.export.Exporter;
import io.jkubelet.agent.export.SpoolStats;
import java.util.List;

/**
 * The event export's counters and spool, read at each scrape:
 *
 * <ul>
 *   <li>{@code jkubelet_event_export_documents_total{exporter,result}}: what became of exported
 *       documents (spooled, written, stale, rejected, requests, failures, retried, rotations);
 *   <li>{@code jkubelet_event_export_spool_bytes}, {@code jkubelet_event_export_spool_max_bytes},
 *       {@code jkubelet_event_export_spool_events}: the spool's contents and its bound;
 *   <li>{@code jkubelet_event_export_spool_dropped_total{type,reason}}: events dropped over the
 *       bound.
 * </ul>
 *
 * @param exporters the export sink's exporters
 */
public record ExportCollector(List<Exporter> exporters) implements Collector {
  @Override
  public List<Family> collect() {
    Family docs =
        Family.counter(
            "jkubelet_event_export_documents_total",
            "Exported event documents and requests, by exporter and result.");
    Family bytes =
        Family.gauge("jkubelet_event_export_spool_bytes", "Bytes in the spool not yet sent.");
    Family max = Family.gauge("jkubelet_event_export_spool_max_bytes", "The spool's bound.");
    Family events =
        Family.gauge("jkubelet_event_export_spool_events", "Events in the spool not yet sent.");
    Family dropped =
        Family.counter(
            "jkubelet_event_export_spool_dropped_total",
            "Events dropped because the spool was full, by type and reason.");
    for (Exporter x : exporters) {
      x.counts().forEach((result, n) -> docs.add(n, "exporter", x.name(), "result", result));
      if (x instanceof BulkExporter b) {
        SpoolStats s = b.spoolStats();
        bytes.add(s.pendingBytes());
        max.add(s.maxBytes());
        events.add(s.pendingRecords());
        s.dropped()
            .forEach(
                (type, byReason) ->
                    byReason.forEach(
                        (reason, n) -> dropped.add(n, "type", type, "reason", reason)));
      }
    }
    return List.of(docs, bytes, max, events, dropped);
  }
}
