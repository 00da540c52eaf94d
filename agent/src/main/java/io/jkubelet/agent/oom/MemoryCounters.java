package io.jkubelet.agent.oom;

import java.util.Optional;

/**
 * A container's memory cgroup as the OOM watch reads it.
 *
 * <p>On cgroup v1: {@code oom_kill} of {@code memory.oom_control}, {@code memory.failcnt}, {@code
 * memory.usage_in_bytes}, {@code memory.limit_in_bytes} and {@code memory.max_usage_in_bytes}. On
 * cgroup v2: {@code oom_kill}, {@code oom} and {@code max} of {@code memory.events} (the last is
 * the times the usage hit {@code memory.max}, v2's nearest to a failcnt), {@code memory.current},
 * {@code memory.max} and {@code memory.peak} where the kernel has it (5.19 and later).
 *
 * @param v2 whether read from a cgroup v2 (unified) hierarchy
 * @param oomKills processes the OOM killer killed in the cgroup
 * @param ooms times the cgroup ran out (v2's {@code oom}); -1 on v1, which does not count them
 * @param failCount v1's {@code memory.failcnt}, v2's {@code max} events
 * @param usageBytes the usage now
 * @param limitBytes the limit, or -1 for none
 * @param peakBytes the highest usage recorded, or -1 where the kernel does not keep it
 */
public record MemoryCounters(
    boolean v2,
    long oomKills,
    long ooms,
    long failCount,
    long usageBytes,
    long limitBytes,
    long peakBytes) {

  /** The limit, when there is one. */
  public Optional<Long> limit() {
    return limitBytes < 0 ? Optional.empty() : Optional.of(limitBytes);
  }
}
