package io.jkubelet.agent.util;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one {@link Scheduler} a subsystem owns: made on {@link #start()} (and handed to the
 * subsystem's periodic tasks), closed on {@link #stop()}; healthy while it exists. Written once for
 * the subsystems whose lifecycle is their scheduler's (the PLEG's relists, the image GC, the image
 * pulls' reports, the stuck-termination checks).
 *
 * <p>Thread-safe: start and stop are serialized on this object; {@link #current()} reads a volatile
 * field from any thread.
 */
public final class OwnedScheduler implements Lifecycle {
  private final Schedulers schedulers;
  private final String name;
  private final String notRunning;
  private final Consumer<Scheduler> schedule;
  private volatile Scheduler scheduler;

  /**
   * @param schedulers makes the scheduler
   * @param name the scheduler's name (its thread's), e.g. {@code "pleg"}
   * @param notRunning what {@link #healthy()} says before the start and after the stop
   * @param schedule puts the periodic tasks on the new scheduler ({@code s -> {}}: none)
   */
  public OwnedScheduler(
      Schedulers schedulers, String name, String notRunning, Consumer<Scheduler> schedule) {
    this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
    this.name = Objects.requireNonNull(name, "name");
    this.notRunning = Objects.requireNonNull(notRunning, "notRunning");
    this.schedule = Objects.requireNonNull(schedule, "schedule");
  }

  /** Makes the scheduler and schedules the tasks; a second start does nothing. */
  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    Scheduler s = schedulers.create(name);
    scheduler = s; // first: a task may ask for it (a relist requesting the next)
    schedule.accept(s);
  }

  /** Closes the scheduler (its tasks end); idempotent. */
  @Override
  public synchronized void stop() {
    Scheduler s = scheduler;
    scheduler = null;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public Health healthy() {
    return scheduler == null ? Health.failing(notRunning) : Health.OK;
  }

  /** The scheduler while started, else null: for one-off tasks, which a stopped owner drops. */
  public Scheduler current() {
    return scheduler;
  }

  @Override
  public String toString() {
    return name;
  }
}
