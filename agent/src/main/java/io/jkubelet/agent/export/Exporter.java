package io.jkubelet.agent.export;

import io.jkubelet.agent.util.Lifecycle;
import java.util.Map;

/**
 * Where exported documents go: Elasticsearch/OpenSearch ({@link BulkExporter}) or a JSON-lines file
 * ({@link JsonLinesExporter}). {@link #export} never blocks on the network and never throws: what
 * it cannot keep is dropped, counted in {@link #counts()} and logged.
 */
public interface Exporter extends Lifecycle {
  /** Hands one document version over; durable (as the implementation says) when it returns. */
  void export(ExportDocument document);

  /** A short name for logs and metrics: {@code bulk}, {@code file}. */
  String name();

  /** Counts by outcome (written, stale, rejected, dropped/..., retries), a snapshot. */
  Map<String, Long> counts();
}
