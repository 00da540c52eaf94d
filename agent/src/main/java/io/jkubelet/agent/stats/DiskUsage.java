package io.jkubelet.agent.stats;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a directory tree holds, as upstream's {@code du}-based volume metrics: the bytes of its
 * files and directories and the inodes they use, symbolic links counted but never followed. A walk
 * is kept for {@code ttl} (upstream measures volumes about once a minute), so a scrape every few
 * seconds costs a map lookup per volume.
 *
 * <p>Thread-safe: a concurrent map of measurements; two scrapes that miss together may both walk.
 */
final class DiskUsage {
  private static final Logger log = LoggerFactory.getLogger(DiskUsage.class);

  /** The bytes and inodes under a directory, measured at {@code at}. */
  record Usage(long bytes, long inodes, Instant at) {}

  private final Clock clock;
  private final Duration ttl;
  private final Map<Path, Usage> measured = new ConcurrentHashMap<>();

  DiskUsage(Clock clock, Duration ttl) {
    this.clock = clock;
    this.ttl = ttl;
  }

  /** The usage under {@code dir}, measured within the TTL; empty when it cannot be read. */
  Optional<Usage> of(Path dir) {
    return of(dir, ttl);
  }

  /** The usage under {@code dir}, measured within {@code maxAge}; empty when it cannot be read. */
  Optional<Usage> of(Path dir, Duration maxAge) {
    Instant now = clock.instant();
    Usage u = measured.get(dir);
    if (u != null && Duration.between(u.at(), now).compareTo(maxAge) < 0) {
      return Optional.of(u);
    }
    try {
      Usage fresh = walk(dir, now);
      measured.put(dir, fresh);
      return Optional.of(fresh);
    } catch (IOException | RuntimeException e) {
      log.debug("stats: cannot measure {}: {}", dir, e.toString());
      measured.remove(dir);
      return Optional.empty();
    }
  }

  /** Forgets every measurement but those of {@code live} directories. */
  void retain(Set<Path> live) {
    measured.keySet().retainAll(live);
  }

  private static Usage walk(Path dir, Instant now) throws IOException {
    long[] totals = new long[2];
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
            add(a);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
            add(a);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
            if (e instanceof NoSuchFileException && !f.equals(dir)) {
              return FileVisitResult.CONTINUE; // gone while walking: the atomic writer's swap
            }
            throw e;
          }

          private void add(BasicFileAttributes a) {
            totals[0] += a.isSymbolicLink() ? 0 : a.size();
            totals[1]++;
          }
        });
    return new Usage(totals[0], totals[1], now);
  }
}
