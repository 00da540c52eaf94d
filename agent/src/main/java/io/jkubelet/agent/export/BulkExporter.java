package io.jkubelet.agent.export;

import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports to Elasticsearch or OpenSearch: {@link #export} appends to the {@link Spool}; the {@code
 * event-export} thread reads batches from it (500 documents or 1 s, by default), sends them with
 * {@code _bulk}, and acknowledges them once the server has answered every document. While the
 * server is unreachable or answers 429/5xx, the batch is retried with backoff and new documents
 * wait in the spool, so they are sent in order once it answers again.
 *
 * <p>A document the server refuses (a 4xx other than 409 and 429, such as a mapping conflict) is
 * logged with its body and skipped: it does not block the batch. A 409 means a newer version is
 * there already, and counts as {@code stale}. A whole request refused with a 4xx (bad credentials,
 * say) is retried, logged at ERROR: the spool keeps the documents until the operator fixes it.
 *
 * <p>Thread-safe: {@link #export} is called by the sink's thread, everything else runs on the
 * sender thread; counters are adders.
 */
public final class BulkExporter implements Exporter {
  private static final Logger log = LoggerFactory.getLogger(BulkExporter.class);
  private static final Duration STOP_WAIT = Duration.ofSeconds(5);
  private static final Duration IDLE_WAKE = Duration.ofSeconds(1);

  private final ExportTarget target;
  private final ExportOptions options;
  private final Time time;
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  private volatile Spool spool;
  private volatile BulkClient client;
  private volatile Thread thread;
  private volatile boolean stopping;
  private volatile boolean templated;
  private volatile Scheduler syncer;
  private boolean failing; // sender thread only

  public BulkExporter(ExportTarget target, ExportOptions options, Time time) {
    this.target = Objects.requireNonNull(target);
    this.options = Objects.requireNonNull(options);
    this.time = Objects.requireNonNull(time);
  }

  /** With a client of its own: tests point it at a local server with short timeouts. */
  BulkExporter(ExportTarget target, ExportOptions options, Time time, BulkClient client) {
    this(target, options, time);
    this.client = client;
  }

  @Override
  public String name() {
    return "bulk";
  }

  @Override
  public synchronized void start() {
    if (thread != null) {
      return;
    }
    try {
      spool =
          Spool.open(
              options.spoolDir(),
              options.spoolMaxBytes(),
              Spool.segmentBytesFor(options.spoolMaxBytes()),
              time.clock());
    } catch (IOException e) {
      throw new UncheckedIOException("event export: cannot open spool " + options.spoolDir(), e);
    }
    if (client == null) {
      client =
          new BulkClient(target.client(Duration.ofSeconds(5)), target, options.requestTimeout());
    }
    SpoolStats s = spool.stats();
    log.info(
        "event export: to {}; spool {} holds {} events ({} bytes, max {} bytes); batches of {}"
            + " or {}",
        target,
        options.spoolDir(),
        s.pendingRecords(),
        s.pendingBytes(),
        s.maxBytes(),
        options.batchSize(),
        options.flushInterval());
    syncer = time.schedulers().create("event-export-fsync");
    syncer.withFixedDelay(options.flushInterval(), options.flushInterval(), spool::sync);
    thread = Thread.ofPlatform().daemon().name("event-export").start(this::run);
  }

  @Override
  public void export(ExportDocument document) {
    Spool s = spool;
    if (s == null) {
      count("dropped/not-started");
      log.warn("event export: not started; dropped event {}", document.id());
      return;
    }
    if (s.append(document)) {
      count("spooled");
    }
  }

  /**
   * Stops the sender (a batch in flight is abandoned, and sent again at the next start) and closes
   * the spool: everything exported so far is on disk.
   */
  @Override
  public void stop() {
    Thread t;
    synchronized (this) {
      t = thread;
      if (t == null || stopping) {
        return;
      }
      stopping = true;
    }
    t.interrupt();
    syncer.close();
    try {
      if (!t.join(STOP_WAIT)) {
        log.warn("event export: sender did not stop within {}", STOP_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    SpoolStats s = spool.stats();
    spool.close();
    log.info(
        "event export: stopped; {} events ({} bytes) left in the spool for the next start",
        s.pendingRecords(),
        s.pendingBytes());
  }

  @Override
  public Health healthy() {
    Thread t = thread;
    if (t == null) {
      return Health.failing("event export is not started");
    }
    if (!t.isAlive() && !stopping) {
      return Health.failing("event export: the sender thread has died");
    }
    return Health.OK;
  }

  @Override
  public Map<String, Long> counts() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /** The spool's sizes and drops; zeros before start. */
  public SpoolStats spoolStats() {
    Spool s = spool;
    return s == null ? new SpoolStats(options.spoolMaxBytes(), 0, 0, 0, Map.of()) : s.stats();
  }

  private void run() {
    Duration backoff = null;
    while (!stopping) {
      try {
        if (!templated) {
          client.putTemplate();
          templated = true;
          log.info("event export: index template {} is in place on {}", target.index(), target);
        }
        if (!spool.awaitBatch(options.batchSize(), options.flushInterval(), IDLE_WAKE)) {
          continue;
        }
        Spool.Batch batch = spool.read(options.batchSize(), options.batchBytes());
        if (batch.documents().isEmpty() && batch.bytes() == 0) {
          continue;
        }
        send(batch.documents());
        spool.ack(batch);
        recovered();
        backoff = null;
      } catch (BulkClient.BulkException e) {
        backoff = options.retry().next(backoff);
        unavailable(e, backoff);
        if (!sleep(backoff)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        backoff = options.retry().next(backoff);
        log.error("event export: spool error, retrying in {}", backoff, e);
        if (!sleep(backoff)) {
          return;
        }
      }
    }
  }

  /** Sends until every document is written, stale or rejected; throws when the server fails. */
  private void send(List<ExportDocument> docs)
      throws BulkClient.BulkException, InterruptedException {
    List<ExportDocument> todo = docs;
    Duration backoff = null;
    while (!todo.isEmpty()) {
      if (stopping) {
        throw new InterruptedException();
      }
      BulkClient.BulkResult r = client.bulk(todo);
      count("requests");
      List<ExportDocument> retry = new ArrayList<>();
      for (int i = 0; i < todo.size(); i++) {
        ExportDocument d = todo.get(i);
        switch (r.items().get(i)) {
          case WRITTEN -> count("written");
          case STALE -> count("stale");
          case RETRY -> retry.add(d);
          case REJECTED -> {
            count("rejected");
            log.warn(
                "event export: {} refused event document {} ({}); skipping it: {}",
                target.base(),
                d.id(),
                r.errors().get(i),
                d.json());
          }
        }
      }
      if (!retry.isEmpty()) {
        count("retried");
        backoff = options.retry().next(backoff);
        log.debug("event export: {} documents to send again in {}", retry.size(), backoff);
        if (!sleep(backoff)) {
          throw new InterruptedException();
        }
      }
      todo = retry;
    }
  }

  private void unavailable(BulkClient.BulkException e, Duration backoff) {
    count("failures");
    SpoolStats s = spool.stats();
    if (!failing) {
      failing = true;
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
    if (failing) {
      failing = false;
      log.info(
          "event export: {} answers again; sending {} spooled events",
          target,
          spool.stats().pendingRecords());
    }
  }

  private boolean sleep(Duration d) {
    try {
      time.sleeper().sleep(d);
      return !stopping;
    } catch (InterruptedException e) {
      return false;
    }
  }

  private void count(String key) {
    counts.computeIfAbsent(key, k -> new LongAdder()).increment();
  }
}
