package io.jkubelet.agent.util;

import java.util.List;

/**
 * The explicit lifecycle of a subsystem: constructors start nothing; {@link #start()} does, {@link
 * #stop()} undoes it, and {@link #healthy()} reports whether it works.
 */
public interface Lifecycle {
  void start();

  void stop();

  /** Whether the subsystem works; a subsystem that is not started is not healthy. */
  Health healthy();

  /**
   * A lifecycle of two actions, named for the log (an executor to shut down, a server started on a
   * thread of its own); always healthy.
   */
  static Lifecycle of(String name, Runnable start, Runnable stop) {
    return new Lifecycle() {
      @Override
      public void start() {
        start.run();
      }

      @Override
      public void stop() {
        stop.run();
      }

      @Override
      public Health healthy() {
        return Health.OK;
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /**
   * A part with nothing to start or stop and nothing that can fail: the {@code NONE} of a subsystem
   * that is off, the in-memory status manager.
   */
  interface Idle extends Lifecycle {
    @Override
    default void start() {}

    @Override
    default void stop() {}

    @Override
    default Health healthy() {
      return Health.OK;
    }
  }

  /** A health report: ok, or what is wrong. */
  record Health(boolean ok, String message) {
    public static final Health OK = new Health(true, "ok");

    public static Health failing(String message) {
      return new Health(false, message);
    }

    /**
     * Ok when every check is; otherwise what is wrong, as upstream's {@code
     * utilerrors.NewAggregate} prints it: one message alone, several as {@code [a, b]}.
     */
    public static Health all(List<Health> checks) {
      List<String> errors = checks.stream().filter(h -> !h.ok()).map(Health::message).toList();
      if (errors.isEmpty()) {
        return OK;
      }
      return failing(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
    }
  }
}
