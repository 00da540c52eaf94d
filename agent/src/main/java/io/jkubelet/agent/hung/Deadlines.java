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
 * until it returns; while it does, the same call (same name, same container) is not sent again but
 * fails at once, so that retries do not pile up threads and connections on a hung container.
 *
 * <p>Thread-safe: {@code hung} is concurrent; each call's hand-over between its thread and its
 * deadline is guarded by the call's own monitor.
 */
final class Deadlines {
  /** Told when a call passes its bound, and when an outstanding one returns at last. */
  interface Listener {
    void hung(HungCall call);

    void returned(HungCall call, Duration took);
  }

  private final Clock clock;
  private final Listener listener;

  /** The calls past their bound that have not returned, by {@link #key}. */
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
   * Starts {@code fn} and returns its answer, which fails with {@code UNAVAILABLE} (cause a {@link
   * TimeoutException}) once {@code bound} passes on {@code scheduler}; with a null scheduler (not
   * started) the call runs on the caller's thread, unbounded. A call whose previous run still hangs
   * fails at once.
   */
  <T> CompletableFuture<T> submit(
      Scheduler scheduler, Call call, Duration bound, Describer describer, Supplier<T> fn) {
    HungCall previous = hung.get(key(call));
    if (previous != null) {
      return CompletableFuture.failedFuture(error(previous, " (not sent again)"));
    }
    if (scheduler == null) {
      try {
        return CompletableFuture.completedFuture(fn.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    Pending<T> pending = new Pending<>(call, clock.instant());
    pending.deadline =
        scheduler.after(
            bound, () -> pending.expire(describer.describe(call, pending.since, bound)));
    Thread.ofVirtual()
        .name("runtime-call")
        .start(
            () -> {
              try {
                pending.finish(fn.get(), null);
              } catch (Throwable t) {
                pending.finish(null, t);
              }
            });
    return pending.answer;
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

  /** One call in flight: its answer, its deadline, and whether it was marked hung. */
  private final class Pending<T> {
    final CompletableFuture<T> answer = new CompletableFuture<>();
    final Call call;
    final Instant since;
    volatile Scheduler.Task deadline;
    private HungCall marked; // guarded by this
    private boolean done; // guarded by this

    Pending(Call call, Instant since) {
      this.call = call;
      this.since = since;
    }

    void expire(HungCall h) {
      synchronized (this) {
        if (done) {
          return;
        }
        marked = h;
        hung.put(key(call), h);
      }
      answer.completeExceptionally(error(h, ""));
      listener.hung(h);
    }

    void finish(T value, Throwable failure) {
      HungCall h;
      synchronized (this) {
        done = true;
        h = marked;
      }
      Scheduler.Task d = deadline;
      if (d != null) {
        d.cancel();
      }
      if (failure != null) {
        answer.completeExceptionally(failure);
      } else {
        answer.complete(value);
      }
      if (h != null && hung.remove(key(call), h)) {
        listener.returned(h, Duration.between(since, clock.instant()));
      }
    }
  }
}
