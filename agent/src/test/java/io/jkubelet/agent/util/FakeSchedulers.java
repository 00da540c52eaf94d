package io.jkubelet.agent.util;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * {@link Schedulers} on a {@link FakeClock}: nothing runs until a test calls {@link #advance},
 * which steps the clock from one due task to the next and runs each on the calling thread. Every
 * scheduler it creates shares one queue, so one call steps the PLEG, the probes and the loop ticks
 * together, in due order.
 *
 * <p>Thread-safe: {@code this} guards the queue; tasks run outside the lock, so a task may schedule
 * or cancel others.
 */
public final class FakeSchedulers implements Schedulers {
  private final FakeClock clock;
  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(Comparator.comparing(Entry::due).thenComparingLong(Entry::seq));
  private final List<String> created = new ArrayList<>();
  private long seq;

  public FakeSchedulers(FakeClock clock) {
    this.clock = clock;
  }

  public FakeClock clock() {
    return clock;
  }

  /** The names of the schedulers created so far, in order. */
  public synchronized List<String> created() {
    return List.copyOf(created);
  }

  /** How many tasks are scheduled. */
  public synchronized int pending() {
    return queue.size();
  }

  /** Steps the clock by {@code d}, running every task that falls due on the way, in due order. */
  public void advance(Duration d) {
    Instant target = clock.instant().plus(d);
    while (true) {
      Entry e;
      synchronized (this) {
        e = queue.peek();
        if (e == null || e.due.isAfter(target)) {
          break;
        }
        queue.poll();
      }
      if (e.due.isAfter(clock.instant())) {
        clock.set(e.due);
      }
      e.run();
    }
    if (target.isAfter(clock.instant())) {
      clock.set(target);
    }
  }

  /** Runs the tasks that are due now, without moving the clock. */
  public void runDue() {
    advance(Duration.ZERO);
  }

  @Override
  public synchronized Scheduler create(String name) {
    created.add(name);
    return new FakeScheduler();
  }

  private synchronized void enqueue(Entry e) {
    if (!e.owner.closed && !e.cancelled) {
      queue.add(e);
    }
  }

  private synchronized void remove(Entry e) {
    queue.remove(e);
  }

  private synchronized void removeAll(FakeScheduler owner) {
    queue.removeIf(e -> e.owner == owner);
  }

  private final class FakeScheduler implements Scheduler {
    private volatile boolean closed;

    @Override
    public Task atFixedRate(Duration initialDelay, Duration period, Runnable task) {
      return add(initialDelay, period, true, task);
    }

    @Override
    public Task withFixedDelay(Duration initialDelay, Duration delay, Runnable task) {
      return add(initialDelay, delay, false, task);
    }

    @Override
    public Task after(Duration delay, Runnable task) {
      return add(delay, null, false, task);
    }

    @Override
    public void close() {
      closed = true;
      removeAll(this);
    }

    private Task add(Duration delay, Duration period, boolean fixedRate, Runnable task) {
      Entry e = new Entry(this, task, period, fixedRate);
      e.due = clock.instant().plus(delay);
      synchronized (FakeSchedulers.this) {
        e.seq = seq++;
      }
      enqueue(e);
      return e;
    }
  }

  private final class Entry implements Scheduler.Task {
    private final FakeScheduler owner;
    private final Runnable task;
    private final Duration period;
    private final boolean fixedRate;
    private volatile boolean cancelled;
    private Instant due;
    private long seq;

    private Entry(FakeScheduler owner, Runnable task, Duration period, boolean fixedRate) {
      this.owner = owner;
      this.task = task;
      this.period = period;
      this.fixedRate = fixedRate;
    }

    Instant due() {
      return due;
    }

    long seq() {
      return seq;
    }

    private void run() {
      try {
        task.run();
      } catch (RuntimeException ignored) {
        // as the real scheduler: a failing task keeps its schedule
      }
      if (period != null && !cancelled) {
        due = (fixedRate ? due : clock.instant()).plus(period);
        enqueue(this);
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
      remove(this);
    }
  }
}
