package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for each event the recorder makes, whether to create a new Event object, patch an
 * existing one, or drop it. Ported from client-go's <a
 * href="https://github.com/kubernetes/client-go/blob/v0.20.2/tools/record/events_cache.go">{@code
 * tools/record/events_cache.go}</a> (v0.20): an {@code EventAggregator}, an {@code eventLogger} and
 * an {@code EventSourceObjectSpamFilter}, applied in that order as {@code EventCorrelate} does.
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
 *   <li><b>Spam filter.</b> A token bucket per (source, involved object without fieldPath), burst
 *       {@code burst}, refilled at {@code refillPerSecond}. With {@code protectWarnings}
 *       (jkubelet's default) a Warning and the first occurrence of a reason for an object neither
 *       spend a token nor are dropped; upstream lets ten containers' Pulled/Created/Started spend a
 *       pod's whole budget so its BackOff and OOM warnings vanish.
 * </ol>
 *
 * <p>Every drop, aggregation and dedup is counted in {@link #stats()}, by cause and by reason;
 * drops are logged at DEBUG, with an INFO summary at most once a minute. Nothing is dropped
 * silently.
 *
 * <p>Differences from upstream, on purpose: the aggregate's set of messages drops the message that
 * completed it (upstream drops an arbitrary one), so the outcome does not depend on map order; and
 * {@link #updateState} files an aggregate under its aggregate key (upstream files it under a key
 * nothing ever looks up); and a dropped event that had no earlier copy is not remembered, so its
 * next occurrence creates it rather than patching an object that was never written.
 *
 * <p>Thread-safe: one lock ({@code this}) guards the three caches and the counters. A call does a
 * few hash lookups under it and no I/O.
 *
 * <p>NOTE: a {@link Correlation.Create} or {@link Correlation.Drop} of an event that was not
 * aggregated carries the very instance passed in, and an {@link Correlation.Update} shares its
 * {@code involvedObject} and {@code source}: hand the correlator an event you no longer mutate. A
 * {@code Drop} carries the event as the recorder made it, before dedup renamed it.
 */
public final class EventCorrelator {
  /** Cause of a drop by the spam filter. */
  public static final String SPAM_FILTER = "spam-filter";

  public static final String DROPPED_SPAM_FILTER = "dropped/" + SPAM_FILTER;
  public static final String AGGREGATED = "aggregated";
  public static final String DEDUPLICATED = "deduplicated";

  /** client-go's {@code EventAggregatorByReasonMessageFunc} prefix. */
  public static final String AGGREGATE_PREFIX = "(combined from similar events): ";

  private static final Logger log = LoggerFactory.getLogger(EventCorrelator.class);
  private static final Duration SUMMARY_PERIOD = Duration.ofMinutes(1);

  private static final int DROP = 0;
  private static final int AGG = 1;
  private static final int DEDUP = 2;
  private static final String[] CAUSES = {DROPPED_SPAM_FILTER, AGGREGATED, DEDUPLICATED};

  private final Clock clock;
  private final CorrelatorOptions options;
  private final long windowNanos;

  // All guarded by this.
  private final Lru<AggregateKey, AggregateRecord> aggregates;
  private final Lru<Object, EventLog> observations;
  private final Lru<SpamKey, SpamRecord> spam;
  private final long[] byCause = new long[CAUSES.length];
  private final Map<String, long[]> byReason = new HashMap<>();
  private long dropsSinceSummary;
  private Instant lastSummary;
  private long formattedSecond = Long.MIN_VALUE;
  private String formatted;

  public EventCorrelator(Clock clock, CorrelatorOptions options) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.options = Objects.requireNonNull(options, "options");
    this.windowNanos = saturatedNanos(options.aggregateWindow());
    this.aggregates = new Lru<>(options.lruSize());
    this.observations = new Lru<>(options.lruSize());
    this.spam = new Lru<>(options.lruSize());
  }

  /** Thread-safe. */
  public Correlation correlate(Event event) {
    Objects.requireNonNull(event, "event");
    ObjectReference ref =
        Objects.requireNonNullElseGet(event.getInvolvedObject(), ObjectReference::new);
    EventSource source = Objects.requireNonNullElseGet(event.getSource(), EventSource::new);
    SpamKey spamKey = SpamKey.of(source, ref);
    AggregateKey aggregateKey = new AggregateKey(spamKey, event.getType(), event.getReason());
    String reason = String.valueOf(event.getReason());

    synchronized (this) {
      Instant now = clock.instant();
      // 1. EventAggregator.EventAggregate
      Event candidate = event;
      Object logKey;
      boolean aggregated = aggregate(aggregateKey, event.getMessage(), now);
      if (aggregated) {
        candidate = aggregateOf(event, now);
        logKey = aggregateKey;
      } else {
        logKey = new EventKey(aggregateKey, ref.getFieldPath(), event.getMessage());
      }
      // 2. eventLogger.eventObserve. The copy is made only when it is written as a patch.
      EventLog last = observations.get(logKey);
      boolean duplicate = last != null && last.count > 0;
      EventLog observation =
          duplicate
              ? new EventLog(last.count + 1, last.firstTimestamp, last.name, last.resourceVersion)
              : new EventLog(
                  countOf(candidate),
                  candidate.getFirstTimestamp(),
                  candidate.getMetadata() == null ? null : candidate.getMetadata().getName(),
                  candidate.getMetadata() == null
                      ? null
                      : candidate.getMetadata().getResourceVersion());
      // 3. EventSourceObjectSpamFilter.Filter
      boolean drop = filter(spamKey, candidate, now);
      // Upstream records the observation before filtering, so a dropped repeat still counts. It
      // also records a dropped first event, whose later repeats then patch an object that was
      // never written; here they create it instead.
      if (duplicate || !drop) {
        observations.put(logKey, observation);
      }
      if (drop) {
        count(reason, DROP);
        noteDrop(candidate, now);
        return new Correlation.Drop(candidate, SPAM_FILTER);
      }
      if (aggregated) {
        count(reason, AGG);
      }
      if (!duplicate) {
        return new Correlation.Create(candidate);
      }
      Event observed = copy(candidate);
      observed.getMetadata().setName(observation.name);
      observed.getMetadata().setResourceVersion(observation.resourceVersion);
      observed.setFirstTimestamp(observation.firstTimestamp);
      observed.setCount(saturatedInt(observation.count));
      observed.setLastTimestamp(format(now));
      count(reason, DEDUP);
      return new Correlation.Update(observed, patchOf(observed));
    }
  }

  /**
   * After a successful write, record what the API server holds (name, count, timestamps), so the
   * next duplicate patches the right object.
   */
  public void updateState(Event written) {
    Objects.requireNonNull(written, "written");
    ObjectReference ref =
        Objects.requireNonNullElseGet(written.getInvolvedObject(), ObjectReference::new);
    EventSource source = Objects.requireNonNullElseGet(written.getSource(), EventSource::new);
    AggregateKey aggregateKey =
        new AggregateKey(SpamKey.of(source, ref), written.getType(), written.getReason());
    String message = written.getMessage();
    Object key =
        message != null && message.startsWith(AGGREGATE_PREFIX)
            ? aggregateKey
            : new EventKey(aggregateKey, ref.getFieldPath(), message);
    ObjectMeta meta = written.getMetadata();
    EventLog entry =
        new EventLog(
            countOf(written),
            written.getFirstTimestamp(),
            meta == null ? null : meta.getName(),
            meta == null ? null : meta.getResourceVersion());
    synchronized (this) {
      observations.put(key, entry);
    }
  }

  /** Counts per reason and per cause: "dropped/spam-filter", "aggregated", "deduplicated". */
  public synchronized CorrelatorStats stats() {
    Map<String, Long> causes = new TreeMap<>();
    for (int i = 0; i < CAUSES.length; i++) {
      if (byCause[i] > 0) {
        causes.put(CAUSES[i], byCause[i]);
      }
    }
    Map<String, Long> reasons = new TreeMap<>();
    byReason.forEach(
        (reason, counts) -> {
          for (int i = 0; i < CAUSES.length; i++) {
            if (counts[i] > 0) {
              reasons.put(reason + "/" + CAUSES[i], counts[i]);
            }
          }
        });
    return new CorrelatorStats(causes, reasons);
  }

  // --- EventAggregator -------------------------------------------------------------------------

  /** Records the message; true when the event is to be combined into the aggregate. */
  private boolean aggregate(AggregateKey key, String message, Instant now) {
    long nowNanos = nanos(now);
    AggregateRecord record = aggregates.get(key);
    // Upstream: interval > maxInterval starts over, measured from the last similar event.
    if (record == null || nowNanos - record.lastNanos > windowNanos) {
      record = new AggregateRecord();
      aggregates.put(key, record);
    }
    record.lastNanos = nowNanos;
    String localKey = message == null ? "" : message;
    boolean added = record.messages.add(localKey);
    if (record.messages.size() < options.maxSimilarEvents()) {
      return false;
    }
    // Upstream pops any member so that the next distinct message aggregates again; popping the
    // one just added keeps the result independent of hash order.
    if (added) {
      record.messages.remove(localKey);
    } else {
      record.messages.remove(record.messages.iterator().next());
    }
    return true;
  }

  private Event aggregateOf(Event event, Instant now) {
    Event aggregate = new Event();
    ObjectReference ref = event.getInvolvedObject();
    String objectName = ref == null || ref.getName() == null ? "" : ref.getName();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(objectName + "." + hex16(nanos(now)));
    meta.setNamespace(event.getMetadata() == null ? null : event.getMetadata().getNamespace());
    aggregate.setMetadata(meta);
    String ts = format(now);
    aggregate.setCount(1);
    aggregate.setFirstTimestamp(ts);
    aggregate.setLastTimestamp(ts);
    aggregate.setInvolvedObject(event.getInvolvedObject());
    aggregate.setMessage(AGGREGATE_PREFIX + event.getMessage());
    aggregate.setType(event.getType());
    aggregate.setReason(event.getReason());
    aggregate.setSource(event.getSource());
    aggregate.setReportingComponent(event.getReportingComponent());
    aggregate.setReportingInstance(event.getReportingInstance());
    return aggregate;
  }

  // --- EventSourceObjectSpamFilter -------------------------------------------------------------

  /** True when the event is to be dropped. */
  private boolean filter(SpamKey key, Event event, Instant now) {
    SpamRecord record = spam.get(key);
    if (record == null) {
      record = new SpamRecord(options.burst(), nanos(now));
      spam.put(key, record);
    }
    if (options.protectWarnings()) {
      boolean firstOfReason = record.firstOf(String.valueOf(event.getReason()));
      if (firstOfReason || EventType.Warning.name().equals(event.getType())) {
        return false;
      }
    }
    return !record.tryAccept(nanos(now), options.refillPerSecond(), options.burst());
  }

  // --- bookkeeping -----------------------------------------------------------------------------

  private void count(String reason, int cause) {
    byCause[cause]++;
    byReason.computeIfAbsent(reason, r -> new long[CAUSES.length])[cause]++;
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

  /** client-go's two-way strategic merge patch of count, lastTimestamp and message. */
  private static String patchOf(Event event) {
    String message = event.getMessage();
    StringBuilder b = new StringBuilder(64 + (message == null ? 0 : message.length()));
    b.append("{\"count\":").append(event.getCount()).append(",\"lastTimestamp\":");
    appendJson(b, event.getLastTimestamp());
    b.append(",\"message\":");
    appendJson(b, message);
    return b.append('}').toString();
  }

  static void appendJson(StringBuilder b, String s) {
    if (s == null) {
      b.append("null");
      return;
    }
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  /** A shallow copy: new metadata, shared involvedObject and source. */
  private static Event copy(Event e) {
    Event c = new Event();
    ObjectMeta m = e.getMetadata();
    ObjectMeta cm = new ObjectMeta();
    if (m != null) {
      cm.setName(m.getName());
      cm.setNamespace(m.getNamespace());
      cm.setResourceVersion(m.getResourceVersion());
      cm.setUid(m.getUid());
      cm.setLabels(m.getLabels());
      cm.setAnnotations(m.getAnnotations());
    }
    c.setMetadata(cm);
    c.setApiVersion(e.getApiVersion());
    c.setKind(e.getKind());
    c.setInvolvedObject(e.getInvolvedObject());
    c.setSource(e.getSource());
    c.setType(e.getType());
    c.setReason(e.getReason());
    c.setMessage(e.getMessage());
    c.setCount(e.getCount());
    c.setFirstTimestamp(e.getFirstTimestamp());
    c.setLastTimestamp(e.getLastTimestamp());
    c.setEventTime(e.getEventTime());
    c.setAction(e.getAction());
    c.setRelated(e.getRelated());
    c.setReportingComponent(e.getReportingComponent());
    c.setReportingInstance(e.getReportingInstance());
    c.setSeries(e.getSeries());
    return c;
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

  private static long countOf(Event e) {
    Integer count = e.getCount();
    return count == null ? 1 : count;
  }

  private static int saturatedInt(long v) {
    return (int) Math.min(Integer.MAX_VALUE, v);
  }

  private static long nanos(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static String hex16(long v) {
    String h = Long.toHexString(v);
    return "0".repeat(Math.max(0, 16 - h.length())) + h;
  }

  // --- keys and records ------------------------------------------------------------------------

  /** client-go's {@code getSpamKey}: source and involved object, without fieldPath. */
  private record SpamKey(
      String component,
      String host,
      String kind,
      String namespace,
      String name,
      String uid,
      String apiVersion) {
    static SpamKey of(EventSource s, ObjectReference r) {
      return new SpamKey(
          s.getComponent(),
          s.getHost(),
          r.getKind(),
          r.getNamespace(),
          r.getName(),
          r.getUid(),
          r.getApiVersion());
    }
  }

  /** client-go's {@code EventAggregatorByReasonFunc} key: the spam key, type and reason. */
  private record AggregateKey(SpamKey object, String type, String reason) {}

  /** client-go's {@code getEventKey}: the aggregate key, fieldPath and message. */
  private record EventKey(AggregateKey similar, String fieldPath, String message) {}

  /** client-go's {@code aggregateRecord}. */
  private static final class AggregateRecord {
    final Set<String> messages = new HashSet<>();
    long lastNanos;
  }

  /** client-go's {@code eventLog}: what the API server holds for a key. */
  private record EventLog(long count, String firstTimestamp, String name, String resourceVersion) {}

  /**
   * A token bucket as golang.org/x/time/rate's {@code Limiter.Allow}: starts full, refills
   * continuously, caps at the burst; plus the reasons seen for the object.
   */
  private static final class SpamRecord {
    /** A handful per object: a list beats a hash set at this size. */
    private final List<String> reasons = new ArrayList<>(4);

    private double tokens;
    private long lastNanos;

    SpamRecord(int burst, long nowNanos) {
      this.tokens = burst;
      this.lastNanos = nowNanos;
    }

    /** True the first time this reason is seen for the object. */
    boolean firstOf(String reason) {
      for (int i = 0; i < reasons.size(); i++) {
        if (reasons.get(i).equals(reason)) {
          return false;
        }
      }
      reasons.add(reason);
      return true;
    }

    boolean tryAccept(long nowNanos, double perSecond, int burst) {
      if (nowNanos > lastNanos) {
        tokens = Math.min(burst, tokens + (nowNanos - lastNanos) / 1e9 * perSecond);
        lastNanos = nowNanos;
      }
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }

  /** An access-ordered LRU map; client-go uses golang-lru. Not thread-safe. */
  private static final class Lru<K, V> extends LinkedHashMap<K, V> {
    private final int max;

    Lru(int max) {
      super(Math.min(max, 1 << 16) * 4 / 3 + 1, 0.75f, true);
      this.max = max;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
      return size() > max;
    }
  }
}
