package io.jkubelet.agent.export;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.agent.events.Correlation;
import io.jkubelet.agent.events.CorrelatorOptions;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventCorrelator;
import io.jkubelet.agent.util.Lifecycle;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event broadcaster's {@code export} watcher: jkubelet's own events, correlated as the API sink
 * correlates them (aggregation into {@code "(combined from similar events)"} events, and a repeat
 * as a count bump of the earlier event, same name, so the same document), then handed to every
 * {@link Exporter}.
 *
 * <p>Unlike the API sink's, this correlator has no spam filter: nothing is dropped on the way to
 * the export, whose spool has a bound of its own. Its own lock makes it independent of the API
 * sink's, so the two never wait for each other.
 *
 * <p>Lifecycle: {@link #start()} starts the exporters (before the broadcaster delivers anything),
 * {@link #stop()} stops them (after the broadcaster has stopped). Thread-safe: the broadcaster
 * calls {@link #accept} from one thread, and the exporters are thread-safe.
 */
public final class ExportSink implements Consumer<Event>, EventBroadcaster.Remembering, Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ExportSink.class);

  /** No spam filter: a bucket that never empties. */
  static final CorrelatorOptions NO_SPAM_FILTER =
      new CorrelatorOptions(4096, 10, Duration.ofSeconds(600), 1e9, Integer.MAX_VALUE, true);

  private final EventCorrelator correlator;
  private final List<Exporter> exporters;

  public ExportSink(Clock clock, List<Exporter> exporters) {
    if (exporters.isEmpty()) {
      throw new IllegalArgumentException("an export sink needs an exporter");
    }
    this.correlator = new EventCorrelator(Objects.requireNonNull(clock), NO_SPAM_FILTER);
    this.exporters = List.copyOf(exporters);
  }

  /** Forgets what its correlator holds about the object with this UID. */
  @Override
  public void forget(String uid) {
    correlator.forget(uid);
  }

  @Override
  public void accept(Event event) {
    Event toExport =
        switch (correlator.correlate(event)) {
          case Correlation.Create c -> c.event();
          case Correlation.Update u -> u.event();
          case Correlation.Drop d -> {
            log.warn("event export: correlator dropped event {}", d.event().getReason());
            yield null;
          }
        };
    if (toExport == null) {
      return;
    }
    ExportDocument doc;
    try {
      doc = EventDocuments.of(toExport);
    } catch (RuntimeException e) {
      log.error("event export: cannot map event {}: {}", toExport.getReason(), e.toString());
      return;
    }
    for (Exporter x : exporters) {
      x.export(doc);
    }
  }

  /** The exporters, for metrics. */
  public List<Exporter> exporters() {
    return exporters;
  }

  /**
   * The lifecycle of the broadcaster with this sink around it: the exporters start before the
   * broadcaster and stop after it, so no event reaches an exporter that is not running.
   */
  public Lifecycle around(Lifecycle broadcaster) {
    ExportSink sink = this;
    return new Lifecycle() {
      @Override
      public void start() {
        sink.start();
        broadcaster.start();
      }

      @Override
      public void stop() {
        broadcaster.stop();
        sink.stop();
      }

      @Override
      public Health healthy() {
        Health h = broadcaster.healthy();
        return h.ok() ? sink.healthy() : h;
      }
    };
  }

  @Override
  public void start() {
    List<Exporter> started = new ArrayList<>();
    try {
      for (Exporter x : exporters) {
        x.start();
        started.add(x);
      }
    } catch (RuntimeException e) {
      started.reversed().forEach(Exporter::stop);
      throw e;
    }
  }

  @Override
  public void stop() {
    exporters.reversed().forEach(Exporter::stop);
  }

  @Override
  public Health healthy() {
    for (Exporter x : exporters) {
      Health h = x.healthy();
      if (!h.ok()) {
        return h;
      }
    }
    return Health.OK;
  }
}
