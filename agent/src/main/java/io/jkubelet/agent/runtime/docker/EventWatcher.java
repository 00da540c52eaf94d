package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Event;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.Sleeper;
import java.io.Closeable;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the engine's container event stream and calls back on each event, reconnecting when the
 * stream ends or breaks: the fast path that wakes the PLEG (whose relist stays the safety net, so a
 * gap while reconnecting only delays a change).
 *
 * <p>Reconnects wait {@link #RECONNECT} on the injected sleeper: 1 s after a stream that had
 * opened, doubling while the engine does not answer. Thread-safe; each watch runs on a virtual
 * thread of its own, named "docker-events", until closed.
 */
final class EventWatcher {
  private static final Logger log = LoggerFactory.getLogger(EventWatcher.class);

  /** The pause before reconnecting: 1 s, doubling up to 30 s while connecting fails. */
  static final Backoff.Policy RECONNECT =
      new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(30));

  /** Opens one event stream that delivers into the callback; returns without waiting for it. */
  @FunctionalInterface
  interface EventSource {
    void open(ResultCallback<Event> callback);
  }

  private final EventSource source;
  private final Sleeper sleeper;

  EventWatcher(EventSource source, Sleeper sleeper) {
    this.source = source;
    this.sleeper = sleeper;
  }

  /** Starts following; {@code onChange} runs on the watch's thread. Returns what stops it. */
  AutoCloseable watch(Runnable onChange) {
    Watch watch = new Watch(onChange);
    Thread thread = Thread.ofVirtual().name("docker-events").start(watch::run);
    return () -> watch.close(thread);
  }

  /** One watch: its open flag and its current stream, both set from two threads. */
  private final class Watch {
    private final Runnable onChange;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AtomicReference<Closeable> current = new AtomicReference<>();

    Watch(Runnable onChange) {
      this.onChange = onChange;
    }

    void run() {
      Duration pause = null;
      try {
        while (open.get()) {
          boolean connected = followOnce();
          if (!open.get()) {
            return;
          }
          pause = RECONNECT.next(connected ? null : pause);
          sleeper.sleep(pause);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Follows one stream until it ends; returns whether it had opened. */
    private boolean followOnce() throws InterruptedException {
      Stream stream = new Stream(onChange);
      current.set(stream);
      if (!open.get()) {
        return false; // closed between the loop's check and now: close() may have missed it
      }
      try {
        source.open(stream);
        stream.awaitCompletion();
      } catch (RuntimeException e) {
        log.debug("DockerRuntime: event stream broke: {}", DockerErrors.failureMessage(e));
        return stream.connected;
      }
      if (stream.failure != null) {
        log.debug(
            "DockerRuntime: event stream broke: {}", DockerErrors.failureMessage(stream.failure));
      }
      return stream.connected;
    }

    void close(Thread thread) {
      open.set(false);
      Closeable c = current.get();
      if (c != null) {
        DockerClients.closeQuietly(c);
      }
      thread.interrupt();
    }
  }

  /**
   * One event stream. Its {@code onError} records the failure instead of logging it at ERROR as
   * docker-java's would: a broken stream is expected (an engine restart) and is reconnected.
   */
  private static final class Stream extends ResultCallback.Adapter<Event> {
    private final Runnable onChange;
    private volatile boolean connected;
    private volatile Throwable failure;

    Stream(Runnable onChange) {
      this.onChange = onChange;
    }

    @Override
    public void onStart(Closeable stream) {
      super.onStart(stream);
      connected = true;
    }

    @Override
    public void onNext(Event event) {
      onChange.run();
    }

    @Override
    public void onError(Throwable throwable) {
      if (failure == null) {
        failure = throwable;
      }
      DockerClients.closeQuietly(this); // completes the stream: awaitCompletion returns
    }
  }
}
