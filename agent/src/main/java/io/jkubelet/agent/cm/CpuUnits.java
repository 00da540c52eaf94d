package io.jkubelet.agent.cm;

/**
 * CPU amounts in the kernel's units, as upstream's {@code pkg/kubelet/cm/helpers_linux.go} and
 * cgroup manager convert them: shares (cgroup v1), weight (cgroup v2) and CFS quota. Stateless.
 */
public final class CpuUnits {
  /** The kernel's least cpu.shares; also what a pod that requests no cpu gets. */
  public static final long MIN_SHARES = 2;

  /** The kernel's largest cpu.shares. */
  public static final long MAX_SHARES = 262144;

  public static final long SHARES_PER_CPU = 1024;
  public static final long MILLI_CPU_TO_CPU = 1000;

  /** The default CFS period, 100 ms in microseconds. */
  public static final long QUOTA_PERIOD = 100_000;

  /** The least CFS quota, 1 ms in microseconds. */
  public static final long MIN_QUOTA_PERIOD = 1000;

  private CpuUnits() {}

  /** Upstream's {@code MilliCPUToShares}: 1024 per core, within [2, 262144]; 0 gives 2. */
  public static long milliCpuToShares(long milliCpu) {
    if (milliCpu == 0) {
      return MIN_SHARES;
    }
    long shares = milliCpu * SHARES_PER_CPU / MILLI_CPU_TO_CPU;
    return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
  }

  /**
   * Upstream's {@code MilliCPUToQuota} with the {@code CustomCPUCFSQuotaPeriod} gate on (jkubelet
   * has no gates; with the default period the result is the same): the quota over {@code
   * periodMicros}, at least 1 ms; 0 for no limit.
   */
  public static long milliCpuToQuota(long milliCpu, long periodMicros) {
    if (milliCpu == 0) {
      return 0;
    }
    return Math.max(MIN_QUOTA_PERIOD, milliCpu * periodMicros / MILLI_CPU_TO_CPU);
  }

  /**
   * cgroup v2's cpu.weight for cpu.shares, as upstream's {@code getCpuWeight}: [2, 262144] onto [1,
   * 10000].
   */
  public static long sharesToWeight(long shares) {
    if (shares >= MAX_SHARES) {
      return 10000;
    }
    return 1 + ((shares - 2) * 9999) / 262142;
  }
}
