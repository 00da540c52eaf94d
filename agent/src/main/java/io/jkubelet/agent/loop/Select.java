package io.jkubelet.agent.loop;

import io.jkubelet.agent.util.Guard;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Go's {@code select} over several bounded channels: {@link #next} waits until any channel has an
 * element, and takes from the ready channels in turn, so a busy channel cannot starve the others.
 *
 * <p>Thread-safe: one {@code guard} guards every channel's queue, and is signalled on every offer
 * (for the select) and every take (for a producer waiting for room).
 */
public final class Select {
  private final Guard guard = new Guard();
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
      return guard.get(
          () -> {
            if (queue.size() >= capacity) {
              dropped.incrementAndGet();
              return false;
            }
            queue.add(in);
            guard.signalAll();
            return true;
          });
    }

    /**
     * Adds an element, waiting for room. For producers that must not lose an update (the pod
     * config), as a Go send on a full channel blocks.
     */
    public void put(T value) throws InterruptedException {
      LoopInput in = wrap.apply(value);
      guard.call(
          () -> {
            while (queue.size() >= capacity) {
              guard.pause();
            }
            queue.add(in);
            guard.signalAll();
            return null;
          });
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
      return guard.get(queue::size);
    }
  }

  /** Creates a channel; channels are polled in the order they were created, round-robin. */
  public <T> Channel<T> channel(String name, int capacity, Function<T, LoopInput> wrap) {
    Channel<T> c = new Channel<>(name, capacity, wrap);
    guard.run(() -> channels.add(c));
    return c;
  }

  /** Waits up to {@code timeout} for an input from any channel. */
  public Optional<LoopInput> next(Duration timeout) throws InterruptedException {
    return guard.await(
        () -> {
          int n = channels.size();
          for (int i = 0; i < n; i++) {
            Channel<?> c = channels.get((nextIndex + i) % n);
            LoopInput in = c.queue.poll();
            if (in != null) {
              nextIndex = (nextIndex + i + 1) % n;
              guard.signalAll();
              return Optional.of(in);
            }
          }
          return Optional.empty();
        },
        timeout);
  }
}
