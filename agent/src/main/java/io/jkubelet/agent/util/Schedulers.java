package io.jkubelet.agent.util;

/**
 * Makes {@link Scheduler}s. {@link #system()} gives every scheduler of the process one timer
 * thread, and runs each scheduler's tasks on a virtual thread named after it ({@link
 * SharedSchedulers}); tests pass a fake whose schedulers run when a fake clock is stepped.
 */
@FunctionalInterface
public interface Schedulers {
  /** A new scheduler; {@code name} names the thread its tasks run on, e.g. "pleg". */
  Scheduler create(String name);

  /**
   * Schedulers on real time: the process's one timer thread ({@code timer-0}) hands due tasks over,
   * and each scheduler runs its own one at a time on a virtual thread. Upstream's goroutines cost
   * no thread each; a platform thread per scheduler cost jkubelet about a dozen idle ones.
   */
  static Schedulers system() {
    return SharedSchedulers.SYSTEM;
  }
}
