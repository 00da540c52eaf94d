package io.jkubelet.agent.util;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A lock around some state, with lock, try and unlock written once: {@link #get} and {@link #run}
 * hold it for a body; {@link #await} waits under it until the state says so, woken by {@link
 * #signalAll}; a body of {@link #call} may {@link #pause} for a signal itself. A {@link
 * ReentrantLock} rather than {@code synchronized}, because pod workers wait and sync on virtual
 * threads, which a monitor pins to their carrier (JDK 21).
 *
 * <p>NOTE: a body runs with every other user of the state shut out: keep it short, and wait only
 * through {@link #await} or {@link #pause}, which let the lock go meanwhile.
 */
public final class Guard {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** {@code body}'s value, computed holding the lock. */
  public <T> T get(Supplier<T> body) {
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code body} holding the lock. */
  public void run(Runnable body) {
    lock.lock();
    try {
      body.run();
    } finally {
      lock.unlock();
    }
  }

  /** A body that may wait for a signal, for {@link #call}. */
  @FunctionalInterface
  public interface Waiting<T> {
    T get() throws InterruptedException;
  }

  /** {@code body}'s value, computed holding the lock; the body may {@link #pause}. */
  public <T> T call(Waiting<T> body) throws InterruptedException {
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }

  /**
   * From a body of {@link #call}: lets the lock go until a {@link #signalAll} or for at most {@code
   * d}, and takes it again.
   */
  public void pause(Duration d) throws InterruptedException {
    changed.awaitNanos(d.toNanos());
  }

  /**
   * From a body of {@link #call}: lets the lock go until a {@link #signalAll}, and takes it again.
   */
  public void pause() throws InterruptedException {
    changed.await();
  }

  /** Wakes every waiter; call it from a body that changed what they wait for. */
  public void signalAll() {
    changed.signalAll();
  }

  /**
   * Holding the lock, asks {@code ready} until it has a value, waiting for a {@link #signalAll}
   * between two asks; empty when {@code timeout} passes first.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public <T> Optional<T> await(Supplier<Optional<T>> ready, Duration timeout)
      throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        Optional<T> value = ready.get();
        if (value.isPresent() || nanos <= 0) {
          return value;
        }
        nanos = changed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** {@link #await} for a condition: whether {@code done} came true before {@code timeout}. */
  public boolean awaitTrue(BooleanSupplier done, Duration timeout) throws InterruptedException {
    return await(() -> done.getAsBoolean() ? Optional.of(true) : Optional.empty(), timeout)
        .isPresent();
  }
}
