package io.jkubelet.agent.testing;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The names of this process's live platform threads, for tests that check which subsystem starts
 * one. {@link Thread#getAllStackTraces} lists platform threads only, so a virtual thread never
 * shows here: that is what such a test asserts.
 */
public final class PlatformThreads {
  private PlatformThreads() {}

  /** The live platform threads, in a set of the caller's own. */
  public static Set<Thread> live() {
    return new HashSet<>(Thread.getAllStackTraces().keySet());
  }

  /** The live platform threads whose names match. */
  public static List<String> named(Predicate<String> match) {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(match).toList();
  }

  /** The live platform threads whose names start with the prefix. */
  public static List<String> startingWith(String prefix) {
    return named(n -> n.startsWith(prefix));
  }
}
