package io.jkubelet.agent.export;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How the bulk exporter batches, spools and retries.
 *
 * @param spoolDir the spool's directory ({@code <root-dir>/events-spool} in jkubelet)
 * @param spoolMaxBytes the bound of unacknowledged bytes in the spool (default 1 GiB)
 * @param batchSize documents per {@code _bulk} request at most (default 500)
 * @param batchBytes bytes per {@code _bulk} request, about (default 5 MiB)
 * @param flushInterval how long a document may wait for its batch to fill (default 1 s); also the
 *     spool's fsync period
 * @param requestTimeout one request's timeout (default 30 s)
 * @param retry the backoff between failed requests (default 200 ms doubling to 10 s)
 * @param inFlight {@code _bulk} requests in flight at once (default 2): while the server indexes
 *     one batch, the next is on its way
 */
public record ExportOptions(
    Path spoolDir,
    long spoolMaxBytes,
    int batchSize,
    int batchBytes,
    Duration flushInterval,
    Duration requestTimeout,
    io.jkubelet.agent.util.Backoff.Policy retry,
    int inFlight) {

  public static final long DEFAULT_SPOOL_MAX = 1L << 30;
  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_IN_FLIGHT = 2;

  public ExportOptions {
    if (spoolDir == null) {
      throw new IllegalArgumentException("spoolDir is required");
    }
    if (spoolMaxBytes < 1 << 20) {
      throw new IllegalArgumentException("spool max must be at least 1Mi, got " + spoolMaxBytes);
    }
    if (batchSize < 1 || batchBytes < 1) {
      throw new IllegalArgumentException("batch size and bytes must be positive");
    }
    if (flushInterval.isNegative() || flushInterval.isZero() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("flush interval and request timeout must be positive");
    }
    if (inFlight < 1) {
      throw new IllegalArgumentException("requests in flight must be at least 1, got " + inFlight);
    }
  }

  /** The defaults, with the spool in {@code spoolDir} bounded at {@code spoolMaxBytes}. */
  public static ExportOptions defaults(Path spoolDir, long spoolMaxBytes) {
    return new ExportOptions(
        spoolDir,
        spoolMaxBytes,
        DEFAULT_BATCH_SIZE,
        5 << 20,
        DEFAULT_FLUSH_INTERVAL,
        Duration.ofSeconds(30),
        new io.jkubelet.agent.util.Backoff.Policy(Duration.ofMillis(200), Duration.ofSeconds(10)),
        DEFAULT_IN_FLIGHT);
  }

  /** The same with another batch size and flush interval. */
  public ExportOptions withBatching(int size, Duration interval) {
    return with(size, interval, retry, inFlight);
  }

  /** The same with another retry backoff. */
  public ExportOptions withRetry(io.jkubelet.agent.util.Backoff.Policy policy) {
    return with(batchSize, flushInterval, policy, inFlight);
  }

  /** The same with another number of requests in flight. */
  public ExportOptions withInFlight(int requests) {
    return with(batchSize, flushInterval, retry, requests);
  }

  private ExportOptions with(
      int size, Duration interval, io.jkubelet.agent.util.Backoff.Policy policy, int requests) {
    return new ExportOptions(
        spoolDir, spoolMaxBytes, size, batchBytes, interval, requestTimeout, policy, requests);
  }
}
