package io.jkubelet.agent.export;

import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry side of the {@link BulkExporter}: delivers one batch with {@code _bulk} until the
 * server has answered every document, with the export's backoff between tries. A request that fails
 * as a whole (no answer, 429, 5xx, a 4xx such as bad credentials) is sent again; the documents the
 * server answered 429/5xx for are sent again alone; a written, stale (409) or refused document is
 * counted, a refused one logged with its body and skipped. An outage is logged once when it starts
 * (at ERROR for a request refused with a 4xx, else WARN) and once when it ends.
 *
 * <p>Thread-safe: the exporter's senders deliver their batches at once, and its dispatcher puts the
 * index template and reports its outages through the same instance; {@code failing} is atomic and
 * the counts are adders.
 */
final class BulkSender {
  /** The exporter's logger: these lines were the exporter's before its sender was split from it. */
  private static final Logger log = LoggerFactory.getLogger(BulkExporter.class);

  private final BulkClient client;
  private final ExportTarget target;
  private final Backoff.Policy retry;
  private final Sleeper sleeper;
  private final BooleanSupplier stopping;
  private final ExportCounts counts;
  private final Supplier<SpoolStats> spool;
  private final AtomicBoolean failing = new AtomicBoolean();
  private volatile boolean templated;

  /**
   * @param stopping whether the exporter is stopping: the retries end
   * @param spool the spool's state, for the outage's log lines
   */
  BulkSender(
      BulkClient client,
      ExportTarget target,
      Backoff.Policy retry,
      Sleeper sleeper,
      BooleanSupplier stopping,
      ExportCounts counts,
      Supplier<SpoolStats> spool) {
    this.client = Objects.requireNonNull(client);
    this.target = Objects.requireNonNull(target);
    this.retry = Objects.requireNonNull(retry);
    this.sleeper = Objects.requireNonNull(sleeper);
    this.stopping = Objects.requireNonNull(stopping);
    this.counts = Objects.requireNonNull(counts);
    this.spool = Objects.requireNonNull(spool);
  }

  /** Puts the index template, unless it is in place already. */
  void ensureTemplate() throws BulkClient.BulkException {
    if (!templated) {
      client.putTemplate();
      templated = true;
      log.info("event export: index template {} is in place on {}", target.index(), target);
    }
  }

  /**
   * Sends until the server has answered every document, retrying while it fails.
   *
   * @return whether it did; false when the exporter stops first (the batch is then never
   *     acknowledged, so sent again at the next start)
   */
  boolean deliver(List<ExportDocument> docs) throws InterruptedException {
    Duration backoff = null;
    while (true) {
      try {
        send(docs);
        break;
      } catch (BulkClient.BulkException e) {
        if (stopping.getAsBoolean()) {
          return false;
        }
        backoff = retry.next(backoff);
        unavailable(e, backoff);
        if (!pause(backoff)) {
          return false;
        }
      }
    }
    recovered();
    return true;
  }

  /** Sends until every document is written, stale or rejected; throws when the server fails. */
  private void send(List<ExportDocument> docs)
      throws BulkClient.BulkException, InterruptedException {
    List<ExportDocument> todo = docs;
    Duration backoff = null;
    while (!todo.isEmpty()) {
      if (stopping.getAsBoolean()) {
        throw new InterruptedException();
      }
      BulkClient.BulkResult r = client.bulk(todo);
      counts.increment("requests");
      List<ExportDocument> again = new ArrayList<>();
      for (int i = 0; i < todo.size(); i++) {
        ExportDocument d = todo.get(i);
        switch (r.items().get(i)) {
          case WRITTEN -> counts.increment("written");
          case STALE -> counts.increment("stale");
          case RETRY -> again.add(d);
          case REJECTED -> {
            counts.increment("rejected");
            log.warn(
                "event export: {} refused event document {} ({}); skipping it: {}",
                target.base(),
                d.id(),
                r.errors().get(i),
                d.json());
          }
        }
      }
      if (!again.isEmpty()) {
        counts.increment("retried");
        backoff = retry.next(backoff);
        log.debug("event export: {} documents to send again in {}", again.size(), backoff);
        if (!pause(backoff)) {
          throw new InterruptedException();
        }
      }
      todo = again;
    }
  }

  /** Counts a failed request; logs the start of an outage, the next try {@code backoff} away. */
  void unavailable(BulkClient.BulkException e, Duration backoff) {
    counts.increment("failures");
    SpoolStats s = spool.get();
    if (failing.compareAndSet(false, true)) {
      String why = e.status() == 0 ? "no answer" : "HTTP " + e.status();
      String msg =
          "event export: {} is unavailable ({}: {}); spooling events ({} pending, {} of max {}"
              + " bytes), next try in {}";
      Object[] args = {
        target, why, e.getMessage(), s.pendingRecords(), s.pendingBytes(), s.maxBytes(), backoff
      };
      if (e.status() / 100 == 4 && e.status() != 429) {
        log.error(msg, args);
      } else {
        log.warn(msg, args);
      }
    } else {
      log.debug("event export: still unavailable: {}", e.getMessage());
    }
  }

  private void recovered() {
    if (failing.compareAndSet(true, false)) {
      log.info(
          "event export: {} answers again; sending {} spooled events",
          target,
          spool.get().pendingRecords());
    }
  }

  /** Waits {@code d}; whether to go on (false once stopping or interrupted). */
  boolean pause(Duration d) {
    try {
      sleeper.sleep(d);
      return !stopping.getAsBoolean();
    } catch (InterruptedException e) {
      return false;
    }
  }
}
