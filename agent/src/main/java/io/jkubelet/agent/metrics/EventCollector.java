package io.jkubelet.agent.metrics;

import io.jkubelet.agent.events.CorrelatorStats;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * jkubelet's event counters, read from the event pipeline at each scrape:
 *
 * <ul>
 *   <li>{@code jkubelet_events_recorded_total{type,reason}}: events the recorder emitted;
 *   <li>{@code jkubelet_events_aggregated_total{reason}} and {@code
 *       jkubelet_events_deduplicated_total{reason}}: what the API sink's correlator combined into
 *       an aggregate, or wrote as a count patch;
 *   <li>{@code jkubelet_events_dropped_total{sink,cause,reason}}: events lost, by the spam filter
 *       ({@code cause="spam_filter"}) or a full watcher queue ({@code cause="queue_full"});
 *   <li>{@code jkubelet_event_sink_requests_total{sink,result}}: what came of the API sink's writes
 *       (created, patched, recreated, rejected, retryLimit).
 * </ul>
 *
 * @param recorded type to (reason to count), from the broadcaster
 * @param queueDrops watcher to (reason to count), from the broadcaster
 * @param correlator the API sink's correlator counts; null in standalone mode
 * @param sinkResults the API sink's write outcomes; null in standalone mode
 */
public record EventCollector(
    Supplier<Map<String, Map<String, Long>>> recorded,
    Supplier<Map<String, Map<String, Long>>> queueDrops,
    Supplier<CorrelatorStats> correlator,
    Supplier<Map<String, Long>> sinkResults)
    implements Collector {

  @Override
  public List<Family> collect() {
    Family rec =
        Family.counter("jkubelet_events_recorded_total", "Events recorded, by type and reason.");
    recorded
        .get()
        .forEach(
            (type, byReason) ->
                byReason.forEach((reason, n) -> rec.add(n, "type", type, "reason", reason)));
    Family aggregated =
        Family.counter(
            "jkubelet_events_aggregated_total",
            "Events the correlator combined into an aggregate event, by reason.");
    Family deduplicated =
        Family.counter(
            "jkubelet_events_deduplicated_total",
            "Events the correlator wrote as a count patch of an existing event, by reason.");
    Family dropped =
        Family.counter(
            "jkubelet_events_dropped_total", "Events never written, by sink, cause and reason.");
    queueDrops
        .get()
        .forEach(
            (sink, byReason) ->
                byReason.forEach(
                    (reason, n) ->
                        dropped.add(n, "sink", sink, "cause", "queue_full", "reason", reason)));
    Family sink =
        Family.counter(
            "jkubelet_event_sink_requests_total", "Event writes to the API server, by result.");
    if (correlator != null) {
      correlator
          .get()
          .byReason()
          .forEach(
              (reason, byCause) ->
                  byCause.forEach(
                      (cause, n) -> {
                        switch (cause) {
                          case AGGREGATED -> aggregated.add(n, "reason", reason);
                          case DEDUPLICATED -> deduplicated.add(n, "reason", reason);
                          case DROPPED_SPAM_FILTER ->
                              dropped.add(
                                  n, "sink", "api", "cause", "spam_filter", "reason", reason);
                        }
                      }));
    }
    if (sinkResults != null) {
      sinkResults.get().entrySet().stream()
          .filter(e -> !e.getKey().startsWith("dropped"))
          .forEach(e -> sink.add(e.getValue(), "sink", "api", "result", e.getKey()));
    }
    return List.of(rec, aggregated, deduplicated, dropped, sink);
  }
}
