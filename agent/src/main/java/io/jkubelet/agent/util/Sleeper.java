package io.jkubelet.agent.util;

import java.time.Duration;

/** Waits; injected so that tests record the waits instead of waiting. */
@FunctionalInterface
public interface Sleeper {
  void sleep(Duration d) throws InterruptedException;

  /** The real one. */
  Sleeper SYSTEM = Thread::sleep;
}
