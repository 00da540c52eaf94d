package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Schedulers} that share a few timer threads among many schedulers: the timers only hand due
 * tasks over, and each scheduler runs its tasks one at a time, in the order they fell due, on a
 * virtual thread named after it. A scheduler thus keeps the contract of {@link Scheduler} (one task
 * at a time, a failing task keeps its schedule) while an agent's dozen schedulers, or a hundred
 * hollow agents', cost the timers' threads and no more. {@link #SYSTEM} is the process's, with one
 * timer thread ({@link Schedulers#system()}).
 *
 * <p>A fixed-rate run that falls due while the previous one has not ended is skipped rather than
 * run late, so that a task slower than its period never piles up runs. A fixed delay is counted
 * from the end of each run, as {@link Schedulers#system()}'s. Thread-safe.
 */
public final class SharedSchedulers implements Schedulers {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  /** The process's schedulers: one timer thread, {@code timer-0}. */
  static final SharedSchedulers SYSTEM = create("timer", 1);

  private final ScheduledThreadPoolExecutor timers;

  private SharedSchedulers(ScheduledThreadPoolExecutor timers) {
    this.timers = timers;
  }

  /**
   * Schedulers on {@code threads} timer threads named {@code <name>-N}, started when first needed.
   * The timers are virtual threads: they only wait and hand tasks over, and the JDK's own timer
   * wakes a waiting virtual thread, so they cost no thread of the process's own. Never shut down:
   * they live as long as the process, as the agents that use them.
   */
  public static SharedSchedulers create(String name, int threads) {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(threads, Thread.ofVirtual().name(name + "-", 0).factory());
    timers.setRemoveOnCancelPolicy(true);
    return new SharedSchedulers(timers);
  }

  @Override
  public Scheduler create(String name) {
    return new Serial(name);
  }

  /** One scheduler: its tasks queued in due order and run by one virtual thread at a time. */
  private final class Serial implements Scheduler {
    private final String name;
    private final Queue<Runnable> due = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final Set<Handle> tasks = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile Thread runner;

    Serial(String name) {
      this.name = name;
    }

    @Override
    public Task atFixedRate(Duration initialDelay, Duration period, Runnable task) {
      Handle h = new Handle(task);
      h.future =
          timers.scheduleAtFixedRate(
              () -> submit(h), initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
      return track(h);
    }

    @Override
    public Task withFixedDelay(Duration initialDelay, Duration delay, Runnable task) {
      Handle h = new Handle(task);
      h.then = () -> h.rearm(delay);
      h.future = timers.schedule(() -> submit(h), initialDelay.toNanos(), TimeUnit.NANOSECONDS);
      return track(h);
    }

    @Override
    public Task after(Duration delay, Runnable task) {
      Handle h = new Handle(task);
      h.then = () -> tasks.remove(h);
      h.future = timers.schedule(() -> submit(h), delay.toNanos(), TimeUnit.NANOSECONDS);
      return track(h);
    }

    private Task track(Handle h) {
      tasks.add(h);
      if (closed) {
        h.cancel();
      }
      return h;
    }

    /** Queues a due run, unless the task's previous run is still queued or running. */
    private void submit(Handle h) {
      if (h.cancelled || closed || !h.pending.compareAndSet(false, true)) {
        return;
      }
      due.add(h::run);
      if (draining.compareAndSet(false, true)) {
        runner = Thread.ofVirtual().name(name).start(this::drain);
      }
    }

    private void drain() {
      do {
        for (Runnable r = due.poll(); r != null; r = due.poll()) {
          r.run();
        }
        draining.set(false);
      } while (!due.isEmpty() && draining.compareAndSet(false, true));
    }

    @Override
    public void close() {
      closed = true;
      tasks.forEach(Handle::cancel);
      due.clear();
      Thread t = runner;
      if (t != null && t != Thread.currentThread()) {
        try {
          t.join(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** A scheduled task: its timer, and whether a run of it is queued or running. */
    private final class Handle implements Task {
      private final Runnable task;
      private final AtomicBoolean pending = new AtomicBoolean();
      private volatile ScheduledFuture<?> future;
      private volatile Runnable then = () -> {};
      private volatile boolean cancelled;

      Handle(Runnable task) {
        this.task = task;
      }

      void run() {
        try {
          if (!cancelled && !closed) {
            task.run();
          }
        } catch (RuntimeException e) {
          log.error("Scheduler {}: a task failed", name, e);
        } finally {
          pending.set(false);
          then.run();
        }
      }

      void rearm(Duration delay) {
        if (!cancelled && !closed) {
          future = timers.schedule(() -> submit(this), delay.toNanos(), TimeUnit.NANOSECONDS);
        }
      }

      @Override
      public void cancel() {
        cancelled = true;
        ScheduledFuture<?> f = future;
        if (f != null) {
          f.cancel(false);
        }
        tasks.remove(this);
      }
    }
  }
}
