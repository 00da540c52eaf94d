package io.jkubelet.agent.status;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the API status manager did since start, counted for logs and tests (see {@link
 * ApiStatusManager.Stats} for what each counter means). Thread-safe: every counter is atomic, and a
 * snapshot is not atomic across counters.
 */
final class StatusCounters {
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong skips = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong forgotten = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();

  void written() {
    writes.incrementAndGet();
  }

  void skipped() {
    skips.incrementAndGet();
  }

  void conflict() {
    conflicts.incrementAndGet();
  }

  void failed() {
    failures.incrementAndGet();
  }

  void deleted() {
    deletes.incrementAndGet();
  }

  void forgot() {
    forgotten.incrementAndGet();
  }

  void resynced() {
    syncs.incrementAndGet();
  }

  /** The counters now, with {@code pending} pods waiting to be written. */
  ApiStatusManager.Stats snapshot(int pending) {
    return new ApiStatusManager.Stats(
        writes.get(),
        skips.get(),
        conflicts.get(),
        failures.get(),
        deletes.get(),
        forgotten.get(),
        syncs.get(),
        pending);
  }
}
