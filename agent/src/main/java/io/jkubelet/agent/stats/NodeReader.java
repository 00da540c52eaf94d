package io.jkubelet.agent.stats;

import java.time.Clock;
import java.time.Duration;

/**
 * The one reader of the node's memory, file systems and processes. The eviction manager reads
 * through it, every 100 ms for memory and every second for all, and decides on what it read; the
 * summary reports its latest reading as the node's, so {@code /stats/summary} shows what eviction
 * acted on. Thread-safe.
 */
public interface NodeReader {
  /**
   * Reads now and makes the result the latest reading. With {@code memoryOnly}, only the node's and
   * the pods' memory are read and the other parts are kept from the latest reading. A part that
   * cannot be read is logged (once, until it reads again) and is null, except that a memory-only
   * read keeps the latest memory in its place: the next full read drops it.
   */
  NodeReading read(boolean memoryOnly);

  /**
   * The latest reading when its last full read is at most {@code maxAge} old, else a full {@link
   * #read} now.
   */
  NodeReading current(Duration maxAge);

  /** Reads the files and file systems {@code options} name. Constructing reads nothing. */
  static NodeReader create(StatsOptions options, Clock clock) {
    return new HostNodeReader(options, clock);
  }
}
