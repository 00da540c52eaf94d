package io.jkubelet.agent.export;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports to Elasticsearch or OpenSearch: {@link #export} appends to the {@link Spool}; the {@code
 * event-export} thread reads batches from it (500 documents or 1 s, by default) and hands each to
 * one of the {@code event-export-send-N} threads, whose {@link BulkSender} sends it with {@code
 * _bulk} until the server has answered every document. Up to {@link ExportOptions#inFlight} batches
 * (2 by default) are in flight at once, so the server indexes one while the next travels; the
 * spool's cursor advances only past batches answered in full, in the order they were read, so a
 * kill or a stop loses none (it may resend some, which the documents' external versions make
 * harmless: a document's newer version is never overwritten by an older one, whichever batch lands
 * first). While the server is unreachable or answers 429/5xx, the batches in flight are retried
 * with backoff and new documents wait in the spool, to be sent in spool order once it answers
 * again.
 *
 * <p>A document the server refuses (a 4xx other than 409 and 429, such as a mapping conflict) is
 * logged with its body and skipped: it does not block the batch. A 409 means a newer version is
 * there already, and counts as {@code stale}. A whole request refused with a 4xx (bad credentials,
 * say) is retried, logged at ERROR: the spool keeps the documents until the operator fixes it.
 *
 * <p>Thread-safe: {@link #export} is called by the sink's thread; {@code inFlight} (guarded by
 * itself) orders the batches being sent for their acknowledgement; counters are adders.
 */
public final class BulkExporter implements Exporter {
  private static final Logger log = LoggerFactory.getLogger(BulkExporter.class);
  private static final Duration STOP_WAIT = Duration.ofSeconds(5);
  private static final Duration IDLE_WAKE = Duration.ofSeconds(1);

  private final ExportTarget target;
  private final ExportOptions options;
  private final Time time;
  private final ExportCounts counts = new ExportCounts();

  private volatile Spool spool;
  private volatile BulkClient client;
  private volatile Thread thread;
  private volatile boolean stopping;
  private volatile BulkSender sender;
  private volatile Scheduler syncer;
  private volatile ExecutorService senders;
  private volatile Semaphore slots;

  /** The batches read and not yet acknowledged, in the order they were read. */
  private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

  /** A batch handed to a sender; {@code done} (guarded by {@code inFlight}) once it is answered. */
  private static final class InFlight {
    final Spool.Batch batch;
    boolean done;

    InFlight(Spool.Batch batch) {
      this.batch = batch;
    }
  }

  /** An exporter that makes its client when it starts. */
  public static BulkExporter create(ExportTarget target, ExportOptions options, Time time) {
    return new BulkExporter(target, options, time, null);
  }

  /**
   * @param client a client of its own (tests point it at a local server with short timeouts), or
   *     null to make one when it starts
   */
  BulkExporter(ExportTarget target, ExportOptions options, Time time, BulkClient client) {
    this.target = Objects.requireNonNull(target);
    this.options = Objects.requireNonNull(options);
    this.time = Objects.requireNonNull(time);
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
    sender =
        new BulkSender(
            client, target, options.retry(), time.sleeper(), () -> stopping, counts, spool::stats);
    SpoolStats s = spool.stats();
    log.info(
        "event export: to {}; spool {} holds {} events ({} bytes, max {} bytes); batches of {}"
            + " or {}, {} in flight",
        target,
        options.spoolDir(),
        s.pendingRecords(),
        s.pendingBytes(),
        s.maxBytes(),
        options.batchSize(),
        options.flushInterval(),
        options.inFlight());
    syncer = time.schedulers().create("event-export-fsync");
    syncer.withFixedDelay(options.flushInterval(), options.flushInterval(), spool::sync);
    slots = new Semaphore(options.inFlight());
    senders =
        Executors.newFixedThreadPool(
            options.inFlight(), Thread.ofVirtual().name("event-export-send-", 0).factory());
    thread = Thread.ofVirtual().name("event-export").start(this::run);
  }

  @Override
  public void export(ExportDocument document) {
    Spool s = spool;
    if (s == null) {
      counts.increment("dropped/not-started");
      log.warn("event export: not started; dropped event {}", document.id());
      return;
    }
    if (s.append(document)) {
      counts.increment("spooled");
    }
  }

  /**
   * Stops the senders (the batches in flight are abandoned, and sent again at the next start) and
   * closes the spool: everything exported so far is on disk.
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
    senders.shutdownNow();
    syncer.close();
    try {
      if (!t.join(STOP_WAIT) || !senders.awaitTermination(STOP_WAIT.toMillis(), MILLISECONDS)) {
        log.warn("event export: senders did not stop within {}", STOP_WAIT);
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
    return counts.snapshot();
  }

  /** The spool's sizes and drops; zeros before start. */
  public SpoolStats spoolStats() {
    Spool s = spool;
    return s == null ? new SpoolStats(options.spoolMaxBytes(), 0, 0, 0, Map.of()) : s.stats();
  }

  /** The {@code event-export} thread: reads batches and hands them to the senders. */
  private void run() {
    Duration backoff = null;
    while (!stopping) {
      try {
        sender.ensureTemplate();
        slots.acquire();
        boolean handed = false;
        try {
          handed = dispatch();
        } finally {
          if (!handed) {
            slots.release();
          }
        }
        backoff = null;
      } catch (BulkClient.BulkException e) {
        backoff = options.retry().next(backoff);
        sender.unavailable(e, backoff);
        if (!sender.pause(backoff)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        backoff = options.retry().next(backoff);
        log.error("event export: spool error, retrying in {}", backoff, e);
        if (!sender.pause(backoff)) {
          return;
        }
      }
    }
  }

  /**
   * With a slot taken: reads the next batch when one is due and hands it to a sender, which
   * releases the slot.
   *
   * @return whether a batch was handed over (else the caller releases the slot)
   */
  private boolean dispatch() throws IOException, InterruptedException {
    if (!spool.awaitBatch(options.batchSize(), options.flushInterval(), IDLE_WAKE)) {
      return false;
    }
    Spool.Batch batch = spool.read(options.batchSize(), options.batchBytes());
    if (batch.records() == 0) {
      return false;
    }
    InFlight f = new InFlight(batch);
    synchronized (inFlight) {
      inFlight.add(f);
    }
    try {
      senders.execute(() -> sendBatch(f));
    } catch (RejectedExecutionException e) {
      throw new InterruptedException("event export: stopping"); // never acknowledged: resent
    }
    return true;
  }

  /** A sender: sends one batch until the server has answered every document, then acks it. */
  private void sendBatch(InFlight f) {
    try {
      if (sender.deliver(coalesce(f.batch.documents()))) {
        acknowledge(f);
      }
    } catch (InterruptedException e) {
      // stopping
    } finally {
      slots.release();
    }
  }

  /** The batch with each document's newest version only; those left out count as coalesced. */
  List<ExportDocument> coalesce(List<ExportDocument> docs) {
    List<ExportDocument> out = ExportDocument.newestVersions(docs);
    if (out.size() < docs.size()) {
      counts.add("coalesced", docs.size() - out.size());
    }
    return out;
  }

  /** Marks a batch answered and acknowledges every answered batch at the head, in order. */
  private void acknowledge(InFlight f) {
    synchronized (inFlight) {
      f.done = true;
      while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
        Spool.Batch b = inFlight.pollFirst().batch;
        try {
          spool.ack(b);
        } catch (IOException | RuntimeException e) {
          // The cursor file is behind: a restart sends these documents again, harmlessly.
          log.warn(
              "event export: cannot move the spool cursor in {}: {}", spool.dir(), e.toString());
        }
      }
    }
  }
}
