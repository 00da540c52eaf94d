package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.oom.KernelKill;
import io.jkubelet.agent.oom.MemoryCounters;
import java.util.Locale;
import java.util.Optional;

/**
 * The words of the OOM events ({@link OomEvents}): the process killed, the memory used against the
 * limit, and what is not known when the kernel log cannot be read. Pure.
 */
final class OomWords {
  private OomWords() {}

  /** "process 30591 (dd)". */
  static String process(KernelKill k) {
    return "process " + k.pid() + " (" + k.command() + ")";
  }

  /**
   * The memory part: from the cgroup's counters when it is still there, else from the kernel's
   * report of the kill, else what is missing.
   */
  static String memory(Optional<MemoryCounters> counters, KernelKill kill, String logMissing) {
    if (counters.isPresent()) {
      MemoryCounters m = counters.get();
      StringBuilder b = new StringBuilder("memory usage ").append(bytes(m.usageBytes()));
      b.append(
          m.limitBytes() < 0
              ? " with no limit of its own"
              : " of its " + bytes(m.limitBytes()) + " limit");
      if (m.peakBytes() >= 0) {
        b.append(", peak ").append(bytes(m.peakBytes()));
      }
      b.append(", limit reached ").append(m.failCount()).append(" times");
      return b.toString();
    }
    if (kill != null && kill.usageKb() >= 0) {
      String s =
          "memory usage "
              + bytes(kill.usageKb() * 1024)
              + " of its "
              + bytes(kill.limitKb() * 1024)
              + " limit when it ran out";
      return kill.anonRssKb() >= 0
          ? s + " (the process held " + bytes(kill.anonRssKb() * 1024) + ")"
          : s;
    }
    return "memory usage unknown (the container's cgroup is gone"
        + (logMissing == null
            ? " and the kernel log did not report it)"
            : " and " + logMissing + ")");
  }

  /** Binary units as Kubernetes writes quantities: 16Mi, 1.5Gi, 900Ki, 12. */
  static String bytes(long n) {
    String[] units = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << (10 * (units.length - i));
      if (n >= unit) {
        if (n % unit == 0) {
          return (n / unit) + units[i];
        }
        String s = String.format(Locale.ROOT, "%.1f", (double) n / unit);
        return (s.endsWith(".0") ? s.substring(0, s.length() - 2) : s) + units[i];
      }
    }
    return Long.toString(n);
  }
}
