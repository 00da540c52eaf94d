package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.jkubelet.agent.util.Lifecycle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans events out to its watchers (the API sink, the log, the local store), each with its own
 * bounded queue and thread, so a slow watcher never slows the others nor the producers.
 *
 * <p>Ported from apimachinery's {@code watch.Broadcaster} (<a
 * href="https://github.com/kubernetes/apimachinery/blob/v0.20.2/pkg/watch/mux.go">mux.go</a>) in
 * its {@code DropIfChannelFull} mode, as client-go's event broadcaster uses it. Unlike upstream,
 * every drop is counted per watcher and reason ({@link #dropped()}) and logged.
 *
 * <p>Watchers are registered with {@link #addWatcher} before {@link #start()}. {@link
 * #action(Event)} never blocks. Each watcher receives its own copy of the event, so one watcher
 * cannot see another's changes. A watcher that throws is logged and keeps receiving events.
 *
 * <p>Thread-safe. The watcher list is fixed at start; drop counters are concurrent maps of adders.
 */
public final class EventBroadcaster implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(EventBroadcaster.class);

  /** Upstream's {@code maxQueuedEvents}. */
  public static final int DEFAULT_QUEUE_LENGTH = 1000;

  private static final Duration STOP_WAIT = Duration.ofSeconds(5);

  private final int queueLength;
  private final List<Watcher> watchers = new ArrayList<>();

  /** Events handed to {@link #action}, by "type/reason": for the recorded-events counter. */
  private final Map<String, LongAdder> recorded = new ConcurrentHashMap<>();

  private volatile boolean started;
  private volatile boolean stopped;

  /** A broadcaster whose watchers' queues hold {@code DEFAULT_QUEUE_LENGTH} events. */
  public static EventBroadcaster create() {
    return new EventBroadcaster(DEFAULT_QUEUE_LENGTH);
  }

  public EventBroadcaster(int queueLength) {
    if (queueLength <= 0) {
      throw new IllegalArgumentException("queue length must be > 0, got " + queueLength);
    }
    this.queueLength = queueLength;
  }

  /**
   * Registers a watcher under a name (used in thread names, logs and drop counts). Only before
   * {@link #start()}.
   */
  public synchronized EventBroadcaster addWatcher(String name, Consumer<Event> watcher) {
    if (started) {
      throw new IllegalStateException("event broadcaster: add watcher " + name + " before start");
    }
    for (Watcher w : watchers) {
      if (w.name.equals(name)) {
        throw new IllegalArgumentException("event broadcaster: watcher " + name + " twice");
      }
    }
    watchers.add(new Watcher(name, watcher, new ArrayBlockingQueue<>(queueLength)));
    return this;
  }

  /**
   * Offers the event to every watcher's queue; never blocks. Normal events may fill a queue to 90
   * %; the rest is kept for Warnings, and a Warning that still finds the queue full displaces the
   * oldest Normal event queued. What is dropped, for that watcher only, is counted.
   */
  public void action(Event event) {
    recorded
        .computeIfAbsent(event.getType() + "/" + event.getReason(), k -> new LongAdder())
        .increment();
    List<Watcher> ws = snapshot();
    boolean copy = ws.size() > 1;
    boolean warning = "Warning".equals(event.getType());
    int normalLimit = Math.max(1, queueLength - queueLength / 10);
    for (Watcher w : ws) {
      Event e = copy ? new EventBuilder(event).build() : event;
      if (!warning && w.queue.size() >= normalLimit) {
        dropped(w, event);
        continue;
      }
      if (w.queue.offer(e)) {
        continue;
      }
      if (warning) {
        Event displaced = oldestNormal(w);
        if (displaced != null && w.queue.remove(displaced)) {
          dropped(w, displaced);
          if (w.queue.offer(e)) {
            continue;
          }
        }
      }
      dropped(w, event);
    }
  }

  private static Event oldestNormal(Watcher w) {
    for (Event queued : w.queue) {
      if (!"Warning".equals(queued.getType())) {
        return queued;
      }
    }
    return null;
  }

  private void dropped(Watcher w, Event event) {
    long n = w.drop(event.getReason());
    // One line per power of two, so a storm does not flood the log.
    if (Long.bitCount(n) == 1) {
      log.warn(
          "event broadcaster: queue of watcher {} is full ({}), dropped {} event {} reason {}"
              + " ({} dropped for this watcher so far)",
          w.name,
          queueLength,
          event.getType(),
          event.getMetadata().getName(),
          event.getReason(),
          n);
    }
  }

  /**
   * A watcher that remembers something per involved object (a correlator's caches) and can forget
   * it once the object is gone.
   */
  public interface Remembering {
    /** Forgets what it holds about the object with this UID. Thread-safe. */
    void forget(String uid);
  }

  /**
   * Tells every {@link Remembering} watcher that the object with this UID is gone, at once rather
   * than through its queue: an event of that object still queued then remembers its key again,
   * which the watcher's LRU bound still holds.
   */
  public void forget(String uid) {
    for (Watcher w : snapshot()) {
      if (w.consumer instanceof Remembering r) {
        try {
          r.forget(uid);
        } catch (RuntimeException e) {
          log.error("event broadcaster: watcher {} failed to forget object {}", w.name, uid, e);
        }
      }
    }
  }

  /** Events recorded so far: type ("Normal", "Warning") to (reason to count). A snapshot. */
  public Map<String, Map<String, Long>> recorded() {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    recorded.forEach(
        (key, adder) -> {
          int slash = key.indexOf('/');
          out.computeIfAbsent(key.substring(0, slash), t -> new TreeMap<>())
              .put(key.substring(slash + 1), adder.sum());
        });
    return out;
  }

  /** Drops so far: watcher name to (reason to count). A snapshot. */
  public Map<String, Map<String, Long>> dropped() {
    Map<String, Map<String, Long>> out = new LinkedHashMap<>();
    for (Watcher w : snapshot()) {
      Map<String, Long> byReason = new TreeMap<>();
      w.drops.forEach((reason, adder) -> byReason.put(reason, adder.sum()));
      out.put(w.name, byReason);
    }
    return out;
  }

  /** The capacity of each watcher's queue. */
  public int queueLength() {
    return queueLength;
  }

  /** Events queued for a watcher and not yet handed to it, for tests and health. */
  public int queued(String watcher) {
    for (Watcher w : snapshot()) {
      if (w.name.equals(watcher)) {
        return w.queue.size();
      }
    }
    throw new IllegalArgumentException("no watcher " + watcher);
  }

  @Override
  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    for (Watcher w : watchers) {
      // Virtual: a watcher mostly waits on its queue; three platform threads idle for nothing.
      w.thread = Thread.ofVirtual().name("event-watcher-" + w.name).start(w::run);
    }
    log.info("event broadcaster: started with watchers {}", names());
  }

  /**
   * Stops every watcher thread: a watcher busy with an event is interrupted (a sink gives up on the
   * event it was retrying). Events still queued are dropped, and their number logged.
   */
  @Override
  public void stop() {
    List<Watcher> ws;
    synchronized (this) {
      if (!started || stopped) {
        return;
      }
      stopped = true;
      ws = List.copyOf(watchers);
    }
    for (Watcher w : ws) {
      w.thread.interrupt();
    }
    for (Watcher w : ws) {
      try {
        if (!w.thread.join(STOP_WAIT)) {
          log.warn("event broadcaster: watcher {} did not stop within {}", w.name, STOP_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      int left = w.queue.size();
      if (left > 0) {
        log.warn("event broadcaster: stopped with {} events undelivered to {}", left, w.name);
      }
    }
    log.info("event broadcaster: stopped");
  }

  @Override
  public Health healthy() {
    if (!started) {
      return Health.failing("event broadcaster is not started");
    }
    if (stopped) {
      return Health.failing("event broadcaster is stopped");
    }
    for (Watcher w : snapshot()) {
      if (!w.thread.isAlive()) {
        return Health.failing("event broadcaster: watcher " + w.name + " has died");
      }
    }
    return Health.OK;
  }

  private synchronized List<Watcher> snapshot() {
    return List.copyOf(watchers);
  }

  /** The watchers' names, in the order added. */
  public synchronized List<String> names() {
    return watchers.stream().map(w -> w.name).toList();
  }

  private static final class Watcher {
    final String name;
    final Consumer<Event> consumer;
    final BlockingQueue<Event> queue;
    final Map<String, LongAdder> drops = new ConcurrentHashMap<>();
    volatile Thread thread;

    Watcher(String name, Consumer<Event> consumer, BlockingQueue<Event> queue) {
      this.name = name;
      this.consumer = consumer;
      this.queue = queue;
    }

    long drop(String reason) {
      LongAdder a = drops.computeIfAbsent(reason == null ? "" : reason, r -> new LongAdder());
      a.increment();
      long total = 0;
      for (LongAdder x : drops.values()) {
        total += x.sum();
      }
      return total;
    }

    void run() {
      while (true) {
        Event e;
        try {
          e = queue.take();
        } catch (InterruptedException ie) {
          return;
        }
        try {
          consumer.accept(e);
        } catch (RuntimeException ex) {
          log.error(
              "event broadcaster: watcher {} failed on event {}",
              name,
              e.getMetadata().getName(),
              ex);
        }
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      }
    }
  }
}
