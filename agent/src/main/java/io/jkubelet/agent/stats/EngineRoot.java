package io.jkubelet.agent.stats;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The engine's root directory ({@code DockerRootDir}), asked for until it answers with a directory,
 * at most once a minute (asking is a call to the engine), then kept.
 *
 * <p>The agent wraps the engine's answer in one (stats and the eviction manager share it); the
 * stats readers wrap what they are given again, which costs nothing once it is known.
 *
 * <p>Thread-safe: {@link #get} is synchronized.
 */
public final class EngineRoot implements Supplier<Path> {
  static final Duration RETRY = Duration.ofMinutes(1);

  private final Supplier<Path> ask;
  private final Clock clock;
  private Path known; // guarded by this
  private Instant askedAt; // guarded by this

  public EngineRoot(Supplier<Path> ask, Clock clock) {
    this.ask = ask;
    this.clock = clock;
  }

  /** The directory, or null while it is not known. */
  @Override
  public synchronized Path get() {
    if (known == null) {
      Instant now = clock.instant();
      if (askedAt == null || Duration.between(askedAt, now).compareTo(RETRY) >= 0) {
        askedAt = now;
        Path dir = ask.get();
        if (dir != null && Files.isDirectory(dir)) {
          known = dir;
        }
      }
    }
    return known;
  }
}
