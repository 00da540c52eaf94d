package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.CorrelatorStats.Cause;
import io.jkubelet.agent.util.Lru;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for each event the recorder makes, whether to create a new Event object, patch an
 * existing one, or drop it. Ported from client-go's <a
 * href="https://github.com/kubernetes/client-go/blob/v0.20.2/tools/record/events_cache.go">{@code
 * tools/record/events_cache.go}</a> (v0.20): an {@link EventAggregator}, an {@link EventLogger} and
 * a {@link SpamFilter} ({@code EventSourceObjectSpamFilter}), applied in that order as {@code
 * EventCorrelate} does.
 *
 * <ol>
 *   <li><b>Aggregation.</b> Events that differ only in their message (same source, involved object
 *       without fieldPath, type and reason) are counted by distinct message. When the {@code
 *       maxSimilarEvents}-th distinct message arrives, with no gap longer than {@code
 *       aggregateWindow} between them, the event becomes an aggregate with the message {@code
 *       "(combined from similar events): <message>"}. Later distinct messages update that one
 *       aggregate object.
 *   <li><b>Dedup.</b> An event identical to one seen before (same key including fieldPath and
 *       message, or the same aggregate) becomes an {@link Correlation.Update} of the stored object:
 *       same name and firstTimestamp, count + 1, lastTimestamp now.
 *   <li><b>Progress.</b> An event annotated {@link #PROGRESS_OF} skips aggregation and the spam
 *       filter and patches the event it reports on (jkubelet's own).
 *   <li><b>Spam filter.</b> A token bucket per (source, involved object without fieldPath), burst
 *       {@code burst}, refilled at {@code refillPerSecond}. With {@code protectWarnings}
 *       (jkubelet's default) a Warning and the first occurrence of a reason for an object neither
 *       spend a token nor are dropped; upstream lets ten containers' Pulled/Created/Started spend a
 *       pod's whole budget so its BackOff and OOM warnings vanish.
 * </ol>
 *
 * <p>Every drop, aggregation and dedup is counted in {@link #stats()}, by {@link
 * CorrelatorStats.Cause} and by reason; drops are logged at DEBUG, with an INFO summary at most
 * once a minute. Nothing is dropped silently.
 *
 * <p>Differences from upstream, on purpose: the aggregate's set of messages drops the message that
 * completed it (upstream drops an arbitrary one), so the outcome does not depend on map order; and
 * {@link #updateState} files an aggregate under its aggregate key (upstream files it under a key
 * nothing ever looks up); and a dropped event that had no earlier copy is not remembered, so its
 * next occurrence creates it rather than patching an object that was never written.
 *
 * <p>Thread-safe: one lock ({@code this}) guards the aggregator, the logger, the spam filter (the
 * three caches) and the counters. A call does a few hash lookups under it and no I/O.
 *
 * <p>NOTE: a {@link Correlation.Create} or {@link Correlation.Drop} of an event that was not
 * aggregated carries the very instance passed in, and an {@link Correlation.Update} shares its
 * {@code involvedObject} and {@code source}: hand the correlator an event you no longer mutate. A
 * {@code Drop} carries the event as the recorder made it, before dedup renamed it.
 */
public final class EventCorrelator implements Correlator {
  /** client-go's {@code EventAggregatorByReasonMessageFunc} prefix. */
  public static final String AGGREGATE_PREFIX = "(combined from similar events): ";

  /**
   * jkubelet's annotation of an event that reports the progress of an earlier one: its value is
   * that event's message. Such an event is filed under the earlier one's key, so that it patches
   * that object's count, lastTimestamp and message rather than creating one of its own (an image
   * pull's progress updates the pod's {@code Pulling} event). It is never aggregated, and it
   * neither spends a token of the spam filter nor is dropped by it: its producer sends at most one
   * per object every few seconds ({@code kuberuntime.ImagePulls}: 10 s).
   */
  public static final String PROGRESS_OF = "jkubelet.io/progress-of";

  private static final Logger log = LoggerFactory.getLogger(EventCorrelator.class);
  private static final Duration SUMMARY_PERIOD = Duration.ofMinutes(1);

  private final Clock clock;

  // All guarded by this.
  private final EventAggregator aggregator;
  private final EventLogger logger;
  private final SpamFilter spamFilter;
  private final CorrelatorStats.Counter counter = new CorrelatorStats.Counter();
  private long dropsSinceSummary;
  private Instant lastSummary;
  private long formattedSecond = Long.MIN_VALUE;
  private String formatted;

  public EventCorrelator(Clock clock, CorrelatorOptions options) {
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(options, "options");
    this.aggregator = new EventAggregator(options);
    this.logger = new EventLogger(options.lruSize());
    this.spamFilter = new SpamFilter(clock, options);
  }

  /** Thread-safe. */
  @Override
  public Correlation correlate(Event event) {
    Objects.requireNonNull(event, "event");
    ObjectReference ref =
        Objects.requireNonNullElseGet(event.getInvolvedObject(), ObjectReference::new);
    EventSource source = Objects.requireNonNullElseGet(event.getSource(), EventSource::new);
    SpamFilter.SpamKey spamKey = SpamFilter.SpamKey.of(source, ref);
    var similar = new EventAggregator.AggregateKey(spamKey, event.getType(), event.getReason());
    String reason = String.valueOf(event.getReason());

    String progressOf = progressOf(event);
    synchronized (this) {
      Instant now = clock.instant();
      if (progressOf != null) {
        Object key = EventLogger.keyOf(similar, false, ref.getFieldPath(), progressOf);
        EventLogger.Observation observation = logger.observe(key, event);
        logger.record(observation);
        if (!observation.duplicate()) {
          return new Correlation.Create(event);
        }
        counter.count(reason, Cause.DEDUPLICATED);
        return EventLogger.update(event, observation.next(), format(now));
      }
      // 1. EventAggregator.EventAggregate
      boolean aggregated = aggregator.aggregate(similar, event.getMessage(), now);
      Event candidate = aggregated ? EventAggregator.aggregateOf(event, now, format(now)) : event;
      // 2. eventLogger.eventObserve. The copy is made only when it is written as a patch.
      Object logKey =
          EventLogger.keyOf(similar, aggregated, ref.getFieldPath(), event.getMessage());
      EventLogger.Observation observation = logger.observe(logKey, candidate);
      // 3. EventSourceObjectSpamFilter.Filter
      boolean drop = spamFilter.filter(spamKey, candidate);
      // Upstream records the observation before filtering, so a dropped repeat still counts. It
      // also records a dropped first event, whose later repeats then patch an object that was
      // never written; here they create it instead.
      if (observation.duplicate() || !drop) {
        logger.record(observation);
      }
      if (drop) {
        counter.count(reason, Cause.DROPPED_SPAM_FILTER);
        noteDrop(candidate, now);
        return new Correlation.Drop(candidate, Cause.DROPPED_SPAM_FILTER);
      }
      if (aggregated) {
        counter.count(reason, Cause.AGGREGATED);
      }
      if (!observation.duplicate()) {
        return new Correlation.Create(candidate);
      }
      counter.count(reason, Cause.DEDUPLICATED);
      return EventLogger.update(candidate, observation.next(), format(now));
    }
  }

  /**
   * After a successful write, record what the API server holds (name, count, timestamps), so the
   * next duplicate patches the right object.
   */
  @Override
  public void updateState(Event written) {
    updateState(written, written);
  }

  /**
   * {@link #updateState(Event)} where what the server answered may lack the annotations of what was
   * sent (a patch's answer is the stored object): the key is {@code sent}'s, so that a progress
   * report ({@link #PROGRESS_OF}) stays filed under the event it reports on.
   */
  @Override
  public void updateState(Event sent, Event written) {
    Objects.requireNonNull(sent, "sent");
    Objects.requireNonNull(written, "written");
    ObjectReference ref =
        Objects.requireNonNullElseGet(written.getInvolvedObject(), ObjectReference::new);
    EventSource source = Objects.requireNonNullElseGet(written.getSource(), EventSource::new);
    var similar =
        new EventAggregator.AggregateKey(
            SpamFilter.SpamKey.of(source, ref), written.getType(), written.getReason());
    String progressOf = progressOf(sent);
    String message = progressOf != null ? progressOf : written.getMessage();
    boolean aggregate =
        progressOf == null && message != null && message.startsWith(AGGREGATE_PREFIX);
    Object key = EventLogger.keyOf(similar, aggregate, ref.getFieldPath(), message);
    synchronized (this) {
      logger.updateState(key, written);
    }
  }

  /** The message of the event that this one reports the progress of, or null. */
  private static String progressOf(Event event) {
    var meta = event.getMetadata();
    var annotations = meta == null ? null : meta.getAnnotations();
    return annotations == null ? null : annotations.get(PROGRESS_OF);
  }

  /**
   * Forgets everything the three caches hold about the object with this UID: the kubelet calls it
   * (through {@link EventRecorder#forget}) once a pod is gone from the node, so that the caches
   * hold the node's current pods rather than the last 4096 keys of a node that churns. An event of
   * that object correlated later starts afresh, as after an LRU eviction.
   */
  @Override
  public synchronized void forget(String uid) {
    Objects.requireNonNull(uid, "uid");
    aggregator.forget(uid);
    logger.forget(uid);
    spamFilter.forget(uid);
  }

  /** Counts per cause, and per reason and cause. */
  @Override
  public synchronized CorrelatorStats stats() {
    return counter.snapshot();
  }

  /**
   * One of the correlator's LRU caches, a snapshot.
   *
   * @param name {@code aggregator}, {@code spam_filter} or {@code logger}
   * @param entries what it holds
   * @param capacity its bound ({@link CorrelatorOptions#lruSize}, client-go's 4096)
   * @param evictions entries it dropped, least recently used first, at its bound
   */
  public record CacheSize(String name, int entries, int capacity, long evictions) {}

  /** Its three LRU caches: aggregator, spam filter, logger. */
  @Override
  public synchronized List<CacheSize> caches() {
    return List.of(
        size("aggregator", aggregator.cache()),
        size("spam_filter", spamFilter.cache()),
        size("logger", logger.cache()));
  }

  private static CacheSize size(String name, Lru<?, ?> lru) {
    return new CacheSize(name, lru.size(), lru.max(), lru.evictions());
  }

  private void noteDrop(Event event, Instant now) {
    if (log.isDebugEnabled()) {
      ObjectReference ref = event.getInvolvedObject();
      log.debug(
          "Event correlator dropped event (spam filter): {}/{} {} {}: {}",
          ref.getNamespace(),
          ref.getName(),
          event.getType(),
          event.getReason(),
          event.getMessage());
    }
    dropsSinceSummary++;
    if (lastSummary == null) {
      lastSummary = now;
    } else if (!now.isBefore(lastSummary.plus(SUMMARY_PERIOD))) {
      log.info(
          "Event correlator dropped {} events (spam filter) since {}; totals by reason: {}",
          dropsSinceSummary,
          lastSummary,
          stats().byReason());
      lastSummary = now;
      dropsSinceSummary = 0;
    }
  }

  /** RFC 3339 to the second, as metav1.Time marshals; cached per second. Guarded by this. */
  private String format(Instant now) {
    long second = now.getEpochSecond();
    if (second != formattedSecond) {
      formatted = now.truncatedTo(ChronoUnit.SECONDS).toString();
      formattedSecond = second;
    }
    return formatted;
  }
}
