package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.util.TokenBucket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broadcaster's watcher that writes events to the API server: it asks the {@link
 * EventCorrelator} what to do with each event, then creates or patches it, with retries.
 *
 * <p>Ported from client-go {@code tools/record/event.go} ({@code recordToSink} and {@code
 * recordEvent}, <a
 * href="https://github.com/kubernetes/client-go/blob/v0.20.2/tools/record/event.go">event.go</a>):
 *
 * <ul>
 *   <li>up to {@value #MAX_TRIES} tries; the first sleep is random in [0, 10 s), so that clients do
 *       not all retry in step after an outage, and later ones are 10 s;
 *   <li>an Update patches the existing event; when the patch answers 404 (the event expired or was
 *       deleted) the event is created again, without a resourceVersion;
 *   <li>after a successful write, {@link EventCorrelator#updateState} records it.
 * </ul>
 *
 * <p>Unlike upstream, which gives up on any answer from the server, only a 4xx answer (400, 403,
 * 404 on create, 409 AlreadyExists, 422; not 429) gives up at once, logged at WARN with the
 * server's reason; a 5xx, a 429 or no answer at all is retried. Every request spends a token of the
 * sink's own rate budget first, upstream's event client's rate limit ({@code eventRecordQPS},
 * {@code eventBurst}; none with a rate of 0), so an event storm waits here, on the watcher's
 * thread, and never delays node heartbeats or pod status, which have clients of their own.
 *
 * <p>NOTE: {@link #accept} blocks for as long as the retries take (up to about 110 s per event when
 * the server is down). That is by design: it runs on the broadcaster's thread for this watcher,
 * whose bounded queue drops, and counts, what arrives meanwhile.
 *
 * <p>Thread-safe, though the broadcaster calls it from one thread: counters are adders.
 */
public final class ApiEventSink implements Consumer<Event>, EventBroadcaster.Remembering {
  private static final Logger log = LoggerFactory.getLogger(ApiEventSink.class);

  /** Upstream's {@code maxTriesPerEvent}. */
  public static final int MAX_TRIES = 12;

  /** Upstream's {@code defaultSleepDuration}. */
  public static final Duration SLEEP = Duration.ofSeconds(10);

  /** Upstream's default budget: eventRecordQPS 5, eventBurst 10. */
  public static final int DEFAULT_QPS = 5;

  public static final int DEFAULT_BURST = 10;

  private final EventWriter writer;
  private final Correlator correlator;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final TokenBucket budget;
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  /**
   * @param writer where events go
   * @param correlator decides create, patch or drop; the sink calls {@code updateState} on it
   * @param clock the rate budget's clock
   * @param sleeper waits between tries and for the budget
   * @param random the first retry's jitter
   * @param qps the rate budget's refill, in requests per second (eventRecordQPS); 0: no budget
   * @param burst the rate budget's size (eventBurst), at least 1 with a budget
   */
  ApiEventSink(
      EventWriter writer,
      Correlator correlator,
      Clock clock,
      Sleeper sleeper,
      RandomGenerator random,
      int qps,
      int burst) {
    this.writer = Objects.requireNonNull(writer);
    this.correlator = Objects.requireNonNull(correlator);
    this.sleeper = Objects.requireNonNull(sleeper);
    this.random = Objects.requireNonNull(random);
    this.budget = qps > 0 ? new TokenBucket(clock, qps, Math.max(burst, 1)) : null;
  }

  /**
   * The production sink: its own client (give it one of its own, so its requests do not queue
   * behind or ahead of the heartbeat's), a correlator with the given spam-filter options, and the
   * event client's rate limit.
   *
   * @param sleeper waits between tries and for the budget: the injected time's
   */
  public static ApiEventSink create(
      KubernetesClient client,
      Clock clock,
      Sleeper sleeper,
      CorrelatorOptions correlation,
      int qps,
      int burst) {
    return new ApiEventSink(
        EventWriter.of(client),
        new EventCorrelator(clock, correlation),
        clock,
        sleeper,
        RandomGenerator.getDefault(),
        qps,
        burst);
  }

  /** What came of a try, and of an event. */
  private enum WriteResult {
    WRITTEN,
    GIVE_UP,
    RETRY
  }

  /** Forgets what its correlator holds about the object with this UID. */
  @Override
  public void forget(String uid) {
    correlator.forget(uid);
  }

  @Override
  public void accept(Event event) {
    Correlation c = correlator.correlate(event);
    switch (c) {
      case Correlation.Drop d -> {
        count(d.cause().label());
        log.debug(
            "event sink: correlator dropped event {} reason {}: {}",
            d.event().getMetadata().getName(),
            d.event().getReason(),
            d.cause());
      }
      case Correlation.Create cr -> recordToSink(cr.event(), null);
      case Correlation.Update u -> recordToSink(u.event(), u.patch());
    }
  }

  /**
   * Counts by outcome: created, patched, recreated, rejected, retryLimit, and the correlator's
   * drops by {@link CorrelatorStats.Cause#label()} ({@code dropped/spam-filter}).
   */
  public Map<String, Long> counts() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /** The sizes of the correlator's LRU caches. */
  public List<EventCorrelator.CacheSize> correlatorCaches() {
    return correlator.caches();
  }

  /** The correlator's own drop counts. */
  public CorrelatorStats correlatorStats() {
    return correlator.stats();
  }

  private void recordToSink(Event event, String patch) {
    int tries = 0;
    while (true) {
      WriteResult o;
      try {
        o = recordEvent(event, patch, tries);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        log.info("event sink: stopping; event {} not written", name(event));
        return;
      }
      if (o != WriteResult.RETRY) {
        return;
      }
      tries++;
      if (tries >= MAX_TRIES) {
        count("retryLimit");
        log.error(
            "event sink: unable to write event {} reason {} (retry limit of {} tries exceeded)",
            name(event),
            event.getReason(),
            MAX_TRIES);
        return;
      }
      // Randomize the first sleep so that clients do not all retry in step after an outage.
      Duration sleep =
          tries == 1 ? Duration.ofNanos((long) (SLEEP.toNanos() * random.nextDouble())) : SLEEP;
      try {
        sleeper.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        log.info("event sink: stopping; event {} not written", name(event));
        return;
      }
    }
  }

  /** One try: writes the event and records it, or says whether to try again. */
  private WriteResult recordEvent(Event event, String patch, int failedSoFar)
      throws InterruptedException {
    Written w;
    try {
      w = write(event, patch);
    } catch (EventWriteException e) {
      return failed(event, e, failedSoFar);
    }
    count(w.op());
    correlator.updateState(event, w.event() != null ? w.event() : event);
    return WriteResult.WRITTEN;
  }

  /** What the server holds after a write, and how it got there. */
  private record Written(Event event, String op) {}

  /** Creates or patches the event; a patch of an event that is gone creates it again. */
  private Written write(Event event, String patch)
      throws EventWriteException, InterruptedException {
    if (patch == null) {
      takeToken();
      return new Written(writer.create(event), "created");
    }
    takeToken();
    try {
      return new Written(writer.patch(event, patch), "patched");
    } catch (EventWriteException e) {
      if (e.code() != 404) {
        throw e;
      }
    }
    // The event expired or was deleted: write it again as a new object.
    Event again =
        new EventBuilder(event).editMetadata().withResourceVersion(null).endMetadata().build();
    takeToken();
    return new Written(writer.create(again), "recreated");
  }

  /** Gives up on a rejected event (WARN); otherwise retries, at WARN the first time only. */
  private WriteResult failed(Event event, EventWriteException e, int failedSoFar) {
    if (e.rejected()) {
      count("rejected");
      log.warn(
          "event sink: server rejected event {} reason {} with {} ({}); not retrying: {}",
          name(event),
          event.getReason(),
          e.code(),
          e.code() == 409 ? "AlreadyExists" : "client error",
          e.getMessage());
      return WriteResult.GIVE_UP;
    }
    String answer = e.code() == 0 ? "no answer" : "HTTP " + e.code();
    if (failedSoFar == 0) {
      log.warn(
          "event sink: could not write event {} reason {} ({}: {}); will retry",
          name(event),
          event.getReason(),
          answer,
          e.getMessage());
    } else {
      log.debug(
          "event sink: try {} of event {} failed ({}: {})",
          failedSoFar + 1,
          name(event),
          answer,
          e.getMessage());
    }
    return WriteResult.RETRY;
  }

  /** Takes a token of the events' rate budget, waiting for one. */
  private void takeToken() throws InterruptedException {
    if (budget != null) {
      budget.acquire(sleeper);
    }
  }

  private void count(String key) {
    counts.computeIfAbsent(key, k -> new LongAdder()).increment();
  }

  private static String name(Event e) {
    return e.getMetadata().getNamespace() + "/" + e.getMetadata().getName();
  }
}
