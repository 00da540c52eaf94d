package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Records;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Copies every container's output from the runtime into upstream's CRI log files ({@link
 * PodLogPaths}: {@code <pods>/<ns>_<pod>_<uid>/<container>/<restart>.log} and the {@code
 * <containers>/<pod>_<ns>_<container>-<id>.log} links), rotated by {@link RotatingLogWriter}, so
 * that log shippers that know the kubelet work unchanged. A restarted agent resumes each file where
 * it left off. The files of a container go when the runtime removes it; a pod's directory goes with
 * the pod ({@link #removePodLogs}).
 */
public interface LogCollector extends Lifecycle {
  /**
   * Removes the log directory of every pod whose UID is not {@code inUse}, and the links that point
   * into a removed directory (upstream's {@code evictPodLogsDirectories}). Call it where pod
   * directories are removed: after all pod sources are seen, for pods neither desired nor in the
   * runtime.
   */
  void removePodLogs(Predicate<String> inUse);

  /** Whether the files are written (false when a root cannot be written: Docker keeps the logs). */
  boolean writing();

  /**
   * What the collector needs.
   *
   * @param paths the two roots
   * @param maxSize {@code containerLogMaxSize} in bytes; non-positive: never rotate
   * @param maxFiles {@code containerLogMaxFiles}, at least 2
   * @param runtime where the output is read ({@link Runtime#followLogEntries})
   * @param pods what the runtime runs, per pod (the PLEG's cache); read once a {@code period}
   * @param time the clock for rotation names, and the schedulers
   * @param period how often new containers are looked for and ended streams resumed
   */
  record Options(
      PodLogPaths paths,
      long maxSize,
      int maxFiles,
      Runtime runtime,
      Supplier<Collection<PodStatus>> pods,
      Time time,
      Duration period) {
    public Options {
      Records.requireNonNull(Options.class, paths, runtime, pods, time, period);
      if (maxFiles < 2) {
        throw new IllegalArgumentException("maxFiles must be at least 2, got " + maxFiles);
      }
      if (period.isNegative() || period.isZero()) {
        throw new IllegalArgumentException("period must be positive, got " + period);
      }
    }
  }

  /** A collector; starts nothing. */
  static LogCollector create(Options options) {
    return new CriLogCollector(options);
  }
}
