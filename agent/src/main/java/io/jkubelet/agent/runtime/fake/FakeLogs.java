package io.jkubelet.agent.runtime.fake;

import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.LogEntrySink;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The output of a {@link FakeRuntime}'s containers: kept per container, and delivered to the
 * streams that follow it. Guarded by the fake runtime's monitor ({@code lock}); sinks are called
 * outside it.
 */
final class FakeLogs {
  private final Object lock;
  private final Clock clock;
  private final Map<String, List<LogEntry>> output = new HashMap<>();
  private final Map<String, List<LogEntrySink>> followers = new HashMap<>();

  FakeLogs(Object lock, Clock clock) {
    this.lock = lock;
    this.clock = clock;
  }

  /** See {@link FakeRuntime#print}. */
  void print(String containerId, String stream, String text) {
    LogEntry e = new LogEntry(clock.instant(), stream, text.getBytes(StandardCharsets.UTF_8));
    List<LogEntrySink> to;
    synchronized (lock) {
      output.computeIfAbsent(containerId, k -> new ArrayList<>()).add(e);
      to = List.copyOf(followers.getOrDefault(containerId, List.of()));
    }
    to.forEach(s -> s.entry(e));
  }

  /** How many streams follow a container's output; with the lock held. */
  int followers(String containerId) {
    return followers.getOrDefault(containerId, List.of()).size();
  }

  /** The container stopped: its followers end; with the lock held. */
  void end(String containerId) {
    List<LogEntrySink> ended = followers.remove(containerId);
    if (ended != null) {
      ended.forEach(s -> s.end(null));
    }
  }

  /** The container is gone: its output goes too, and its followers end; with the lock held. */
  void forget(String containerId) {
    output.remove(containerId);
    end(containerId);
  }

  /**
   * See {@link FakeRuntime#followLogEntries}. {@code running} records the call and says whether the
   * container runs (or throws); it is asked under the lock, with the follower added in the same
   * hold, so that a stop cannot come between.
   */
  AutoCloseable follow(
      String containerId, Optional<Instant> since, LogEntrySink sink, BooleanSupplier running) {
    List<LogEntry> past;
    boolean runs;
    synchronized (lock) {
      runs = running.getAsBoolean();
      past = List.copyOf(output.getOrDefault(containerId, List.of()));
      if (runs) {
        followers.computeIfAbsent(containerId, k -> new ArrayList<>()).add(sink);
      }
    }
    past.stream()
        .filter(e -> since.isEmpty() || !e.time().isBefore(since.get()))
        .forEach(sink::entry);
    if (!runs) {
      sink.end(null);
    }
    return () -> {
      synchronized (lock) {
        List<LogEntrySink> l = followers.get(containerId);
        if (l != null) {
          l.remove(sink);
        }
      }
    };
  }
}
