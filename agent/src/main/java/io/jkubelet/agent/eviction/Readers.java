package io.jkubelet.agent.eviction;

import io.jkubelet.config.EvictionSettings.Signal;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/** Where the manager's readings come from: the host's signals, and each pod's usage. */
public final class Readers {
  private Readers() {}

  /** Reads the signals. Called from the manager's thread only. */
  public interface SignalReader {
    /**
     * The signals readable now; a signal that cannot be read is left out (and logged by the
     * reader). {@code memoryOnly}: only the memory signals are needed (the fast path).
     */
    Map<Signal, Observation> read(boolean memoryOnly);
  }

  /** Reads each pod's usage, by pod UID. Called only when a pod is to be ranked. */
  public interface PodUsageReader {
    /**
     * For {@link #read}: disk usage of any age, the minute-old figures {@code /stats/summary}
     * serves.
     */
    Duration ANY_DISK_AGE = ChronoUnit.FOREVER.getDuration();

    /**
     * The pods' usage, with disk usage measured at most {@code diskMaxAge} ago ({@link
     * #ANY_DISK_AGE} when no disk signal is to be acted on).
     */
    Map<String, PodUsage> read(Duration diskMaxAge);
  }
}
