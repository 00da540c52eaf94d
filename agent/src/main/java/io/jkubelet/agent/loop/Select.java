package io.jkubelet.agent.loop;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Go's {@code select} over several bounded channels: {@link #next} waits until any channel has an
 * element, and takes from the ready channels in turn, so a busy channel cannot starve the others.
 *
 * <p>Thread-safe: one {@code lock} guards every channel's queue; {@code ready} is signalled on
 * every offer, {@code room} on every take.
 */
public final class Select {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition ready = lock.newCondition();
  private final Condition room = lock.newCondition();
  private final List<Channel<?>> channels = new ArrayList<>();
  private int nextIndex;

  /** A bounded channel whose elements the select hands out as {@link LoopInput}s. */
  public final class Channel<T> {
    private final String name;
    private final int capacity;
    private final Function<T, LoopInput> wrap;
    private final ArrayDeque<LoopInput> queue = new ArrayDeque<>();
    private final AtomicLong dropped = new AtomicLong();

    private Channel(String name, int capacity, Function<T, LoopInput> wrap) {
      this.name = name;
      this.capacity = capacity;
      this.wrap = wrap;
    }

    /** Adds an element unless the channel is full; returns whether it was added. */
    public boolean offer(T value) {
      LoopInput in = wrap.apply(value);
      lock.lock();
      try {
        if (queue.size() >= capacity) {
          dropped.incrementAndGet();
          return false;
        }
        queue.add(in);
        ready.signal();
        return true;
      } finally {
        lock.unlock();
      }
    }

    /**
     * Adds an element, waiting for room. For producers that must not lose an update (the pod
     * config), as a Go send on a full channel blocks.
     */
    public void put(T value) throws InterruptedException {
      LoopInput in = wrap.apply(value);
      lock.lock();
      try {
        while (queue.size() >= capacity) {
          room.await();
        }
        queue.add(in);
        ready.signal();
      } finally {
        lock.unlock();
      }
    }

    public String name() {
      return name;
    }

    /** The most inputs the channel holds; an offer beyond it is dropped (and counted). */
    public int capacity() {
      return capacity;
    }

    /** How many offers found the channel full. */
    public long dropped() {
      return dropped.get();
    }

    public int size() {
      lock.lock();
      try {
        return queue.size();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Creates a channel; channels are polled in the order they were created, round-robin. */
  public <T> Channel<T> channel(String name, int capacity, Function<T, LoopInput> wrap) {
    Channel<T> c = new Channel<>(name, capacity, wrap);
    lock.lock();
    try {
      channels.add(c);
    } finally {
      lock.unlock();
    }
    return c;
  }

  /** Waits up to {@code timeout} for an input from any channel. */
  public Optional<LoopInput> next(Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        int n = channels.size();
        for (int i = 0; i < n; i++) {
          Channel<?> c = channels.get((nextIndex + i) % n);
          LoopInput in = c.queue.poll();
          if (in != null) {
            nextIndex = (nextIndex + i + 1) % n;
            room.signalAll();
            return Optional.of(in);
          }
        }
        if (nanos <= 0) {
          return Optional.empty();
        }
        nanos = ready.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }
}
