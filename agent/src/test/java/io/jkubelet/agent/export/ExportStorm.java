package io.jkubelet.agent.export;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An event storm through the real pipeline (recorder, broadcaster, export sink, bulk exporter and
 * spool), for the e2e tests and the benchmark: pods crash-looping, OOM-killed, pulled, started and
 * killed, with count bumps and aggregates. A ledger exporter after the bulk exporter sees each
 * document once the spool holds it.
 *
 * <p>As a program (the kill -9 test's child): {@code URL SPOOL_DIR LEDGER_FILE PREFIX EVENTS RATE
 * INDEX}; it records {@code EVENTS} events at {@code RATE} per second, waits until the spool is
 * empty, prints the broadcaster's drops and exits.
 */
final class ExportStorm implements AutoCloseable {
  final EventBroadcaster broadcaster = new EventBroadcaster(10_000);
  final BulkExporter bulk;
  final ExportSink sink;
  final BroadcastRecorder recorder;
  final String prefix;
  final AtomicLong recorded = new AtomicLong();
  private volatile boolean stopped;

  ExportStorm(String url, String index, Path spool, Exporter ledger, String prefix, int batch) {
    this(url, index, spool, ledger, prefix, batch, ExportOptions.DEFAULT_FLUSH_INTERVAL);
  }

  ExportStorm(
      String url,
      String index,
      Path spool,
      Exporter ledger,
      String prefix,
      int batch,
      Duration flush) {
    this(url, index, spool, ledger, prefix, batch, flush, ExportOptions.DEFAULT_IN_FLIGHT);
  }

  ExportStorm(
      String url,
      String index,
      Path spool,
      Exporter ledger,
      String prefix,
      int batch,
      Duration flush,
      int inFlight) {
    Time time = Time.system();
    ExportOptions options =
        ExportOptions.defaults(spool, 1L << 30)
            .withBatching(batch, flush)
            .withRetry(new Backoff.Policy(Duration.ofMillis(200), Duration.ofSeconds(5)))
            .withInFlight(inFlight);
    bulk = BulkExporter.create(ExportTarget.parse(url, null, null, index), options, time);
    sink = new ExportSink(time.clock(), ledger == null ? List.of(bulk) : List.of(bulk, ledger));
    broadcaster.addWatcher("export", sink);
    recorder = new BroadcastRecorder(time.clock(), "storm-node", broadcaster);
    this.prefix = prefix;
  }

  void start() {
    sink.start();
    broadcaster.start();
  }

  /** Event {@code i} of the storm: 400 pods, five stories, one of them with twelve messages. */
  void record(long i) {
    var pod =
        new ObjectReferenceBuilder()
            .withKind("Pod")
            .withNamespace("storm")
            .withName(prefix + "-" + (i % 400))
            .withUid(prefix + "-uid-" + (i % 400))
            .withApiVersion("v1")
            .build();
    switch ((int) ((i / 400) % 5)) {
      case 0 ->
          recorder.event(pod, EventType.Warning, "BackOff", "Back-off restarting failed container");
      case 1 -> recorder.event(pod, EventType.Normal, "Pulled", "Container image already present");
      case 2 ->
          recorder.event(
              pod,
              EventType.Warning,
              "OOMKilling",
              "Memory cgroup out of memory: Killed process (app)");
      case 3 -> recorder.event(pod, EventType.Normal, "Started", "Started container app");
      default ->
          recorder.event(
              pod, EventType.Normal, "Killing", "Stopping container c" + ((i / 2000) % 12));
    }
    recorded.incrementAndGet();
  }

  /** Records {@code n} events (or until {@link #stopStorm}) at {@code rate} per second. */
  void storm(long n, int rate) {
    long start = System.nanoTime();
    for (long i = 0; i < n && !stopped; i++) {
      long due = start + i * 1_000_000_000L / rate;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      record(i);
    }
  }

  /** Records {@code n} events as fast as the export watcher takes them (no broadcaster drops). */
  void flood(long n) {
    for (long i = 0; i < n; i++) {
      while (broadcaster.queued("export") > 5000) {
        LockSupport.parkNanos(100_000L);
      }
      record(i);
    }
  }

  void stopStorm() {
    stopped = true;
  }

  /** Events the broadcaster dropped, all watchers and reasons. */
  long broadcasterDrops() {
    return broadcaster.dropped().values().stream()
        .flatMap(m -> m.values().stream())
        .mapToLong(Long::longValue)
        .sum();
  }

  /** Whether every recorded event has passed the sink and the spool is empty. */
  boolean drained() {
    return broadcaster.queued("export") == 0 && bulk.spoolStats().pendingRecords() == 0;
  }

  @Override
  public void close() {
    broadcaster.stop();
    sink.stop();
  }

  public static void main(String[] args) throws Exception {
    Path ledger = Path.of(args[2]);
    var file = new JsonLinesExporter(ledger, 1L << 40, 1);
    try (var storm = new ExportStorm(args[0], args[6], Path.of(args[1]), file, args[3], 500)) {
      storm.start();
      storm.storm(Long.parseLong(args[4]), Integer.parseInt(args[5]));
      while (!storm.drained()) {
        LockSupport.parkNanos(50_000_000L);
      }
      System.out.println(
          "recorded " + storm.recorded.get() + " dropped " + storm.broadcasterDrops());
    }
  }
}
