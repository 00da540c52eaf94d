package io.jkubelet.agent.hung;

import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs calls under a deadline on the injected time: each call runs on a virtual thread of its own,
 * and a task on the {@link Scheduler} fails the caller's wait when the bound passes. The call
 * itself cannot be cancelled (a socket read that the engine never answers), so it stays outstanding
 * until it returns. While it hangs (past a bound), the same call (same name, same container) is not
 * sent again but fails at once ({@link #submit}), so that retries do not pile up threads and
 * connections on a hung container. A read that every caller may share (an inspect) is {@link
 * #join}ed instead: a second caller waits for the answer of the call in flight up to its own bound,
 * counted from when the call was sent. So a caller with a short bound (the PLEG's relist) fails at
 * once on an inspect that has outlasted it, while one with a longer bound (a pod worker's sync,
 * that has nothing to keep instead) waits for the same answer.
 *
 * <p>A call is hung from the moment its first caller's bound passes until it returns: the {@link
 * Listener} hears both, once each.
 *
 * <p>Thread-safe: {@code flights} and {@code hung} are concurrent; a flight's mark is guarded by
 * the flight's own monitor.
 */
final class Deadlines {
  /** Told when a call passes its bound, and when an outstanding one returns at last. */
  interface Listener {
    void hung(HungCall call);

    void returned(HungCall call, Duration took);
  }

  private final Clock clock;
  private final Listener listener;

  /** The shared calls ({@link #join}) sent and not yet returned, by {@link #key}. */
  private final Map<String, Flight<?>> flights = new ConcurrentHashMap<>();

  /** The calls past a bound that have not returned, by {@link #key}. */
  private final Map<String, HungCall> hung = new ConcurrentHashMap<>();

  Deadlines(Clock clock, Listener listener) {
    this.clock = clock;
    this.listener = listener;
  }

  /** What a call would be known by, for the describer of a hung one. */
  record Call(String name, String containerId, String subject) {}

  /** Makes the {@link HungCall} for a call that has just passed its bound. */
  interface Describer {
    HungCall describe(Call call, Instant since, Duration bound);
  }

  /**
   * Sends {@code fn} and returns its answer, which fails with {@code UNAVAILABLE} (cause a {@link
   * TimeoutException}) once {@code bound} passes on {@code scheduler}; with a null scheduler (not
   * started) the call runs on the caller's thread, unbounded. A call whose previous run still hangs
   * fails at once.
   */
  <T> CompletableFuture<T> submit(
      Scheduler scheduler, Call call, Duration bound, Describer describer, Supplier<T> fn) {
    HungCall previous = hung.get(key(call));
    if (previous != null && scheduler != null) {
      return CompletableFuture.failedFuture(error(previous, " (not sent again)"));
    }
    return send(scheduler, call, bound, describer, fn, false);
  }

  /**
   * As {@link #submit}, for a call whose answer any caller may share: joins the same call in flight
   * rather than send it again, and fails once {@code bound} from the call's sending passes (at once
   * when it already has).
   */
  <T> CompletableFuture<T> join(
      Scheduler scheduler, Call call, Duration bound, Describer describer, Supplier<T> fn) {
    return send(scheduler, call, bound, describer, fn, true);
  }

  @SuppressWarnings("unchecked")
  private <T> CompletableFuture<T> send(
      Scheduler scheduler,
      Call call,
      Duration bound,
      Describer describer,
      Supplier<T> fn,
      boolean shared) {
    if (scheduler == null) {
      try {
        return CompletableFuture.completedFuture(fn.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    Flight<T> flight;
    if (shared) {
      Flight<?>[] sent = new Flight<?>[1];
      flight =
          (Flight<T>)
              flights.computeIfAbsent(
                  key(call), k -> sent[0] = new Flight<>(call, clock.instant(), true));
      if (sent[0] != flight) {
        return flight.await(scheduler, bound, describer);
      }
    } else {
      flight = new Flight<>(call, clock.instant(), false);
    }
    Flight<T> started = flight;
    Thread.ofVirtual().name("runtime-call").start(() -> started.run(fn));
    return flight.await(scheduler, bound, describer);
  }

  /** The caller's wait for an answer: its value, or its failure as it was thrown. */
  static <T> T await(CompletableFuture<T> answer) {
    try {
      return answer.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new RuntimeError(Kind.UNAVAILABLE, "interrupted while waiting for the runtime"), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw Errors.withCause(
          new RuntimeError(Kind.UNAVAILABLE, String.valueOf(e.getCause())), e.getCause());
    }
  }

  /** Whether {@code e} says that a call hung (now or before). */
  static boolean isHung(Throwable e) {
    return e instanceof RuntimeError r && r.getCause() instanceof TimeoutException;
  }

  /** The calls that hang now. */
  Set<HungCall> hung() {
    return Set.copyOf(hung.values());
  }

  private RuntimeError error(HungCall h, String suffix) {
    String message = h.message(clock.instant()) + suffix;
    return Errors.withCause(
        new RuntimeError(Kind.UNAVAILABLE, message), new TimeoutException(message));
  }

  private static String key(Call call) {
    return call.name() + " " + call.containerId() + " " + call.subject();
  }

  /** One call sent and not yet returned: its result, when it was sent, and whether it hangs. */
  private final class Flight<T> {
    final CompletableFuture<T> result = new CompletableFuture<>();
    final Call call;
    final Instant since;
    final boolean shared;
    private HungCall marked; // guarded by this
    private boolean returned; // guarded by this

    Flight(Call call, Instant since, boolean shared) {
      this.call = call;
      this.since = since;
      this.shared = shared;
    }

    void run(Supplier<T> fn) {
      T value = null;
      Throwable failure = null;
      try {
        value = fn.get();
      } catch (Throwable t) {
        failure = t;
      }
      HungCall h;
      synchronized (this) {
        returned = true;
        if (shared) {
          flights.remove(key(call), this);
        }
        h = marked;
      }
      if (failure != null) {
        result.completeExceptionally(failure);
      } else {
        result.complete(value);
      }
      if (h != null && hung.remove(key(call), h)) {
        listener.returned(h, Duration.between(since, clock.instant()));
      }
    }

    /**
     * One caller's wait: the result, or a failure once {@code bound} from {@link #since} passes.
     */
    CompletableFuture<T> await(Scheduler scheduler, Duration bound, Describer describer) {
      Duration left = bound.minus(Duration.between(since, clock.instant()));
      if (!left.isPositive() && !result.isDone()) {
        HungCall h = mark(describer.describe(call, since, bound));
        return h == null
            ? result.copy()
            : CompletableFuture.failedFuture(error(h, " (not sent again)"));
      }
      CompletableFuture<T> answer = result.copy();
      if (!result.isDone()) {
        Scheduler.Task deadline =
            scheduler.after(
                left,
                () -> {
                  HungCall h = mark(describer.describe(call, since, bound));
                  if (h != null) {
                    answer.completeExceptionally(error(h, ""));
                  }
                });
        result.whenComplete((v, t) -> deadline.cancel());
      }
      return answer;
    }

    /** Marks the call hung, telling the listener the first time; null when it has returned. */
    private HungCall mark(HungCall h) {
      synchronized (this) {
        if (returned) {
          return null;
        }
        if (marked != null) {
          return marked;
        }
        marked = h;
        hung.put(key(call), h);
      }
      listener.hung(h);
      return h;
    }
  }
}
