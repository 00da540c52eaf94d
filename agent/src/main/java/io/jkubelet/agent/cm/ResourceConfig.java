package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodRequests;
import io.jkubelet.agent.pod.PodSpecs;
import io.jkubelet.config.Records;
import java.util.OptionalLong;

/**
 * The limits written into one cgroup, as upstream's {@code ResourceConfig}: an empty value leaves
 * that file alone.
 *
 * @param cpuShares cpu.shares (v1), converted to cpu.weight on v2
 * @param cpuQuota the CFS quota in microseconds; -1 for none (v2: {@code max})
 * @param cpuPeriod the CFS period in microseconds
 * @param memoryLimit bytes; -1 for none
 * @param pidsLimit the most processes; -1 for none
 */
public record ResourceConfig(
    OptionalLong cpuShares,
    OptionalLong cpuQuota,
    OptionalLong cpuPeriod,
    OptionalLong memoryLimit,
    OptionalLong pidsLimit) {

  /** Sets nothing. */
  public static final ResourceConfig EMPTY =
      new ResourceConfig(
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty());

  public ResourceConfig {
    Records.requireNonNull(
        ResourceConfig.class, cpuShares, cpuQuota, cpuPeriod, memoryLimit, pidsLimit);
  }

  /** Only cpu shares. */
  public static ResourceConfig shares(long shares) {
    return EMPTY.withCpuShares(shares);
  }

  public ResourceConfig withCpuShares(long v) {
    return new ResourceConfig(OptionalLong.of(v), cpuQuota, cpuPeriod, memoryLimit, pidsLimit);
  }

  public ResourceConfig withCpuQuota(long quota, long period) {
    return new ResourceConfig(
        cpuShares, OptionalLong.of(quota), OptionalLong.of(period), memoryLimit, pidsLimit);
  }

  public ResourceConfig withMemoryLimit(long v) {
    return new ResourceConfig(cpuShares, cpuQuota, cpuPeriod, OptionalLong.of(v), pidsLimit);
  }

  public ResourceConfig withPidsLimit(long v) {
    return new ResourceConfig(cpuShares, cpuQuota, cpuPeriod, memoryLimit, OptionalLong.of(v));
  }

  /**
   * A pod cgroup's limits, as upstream's {@code ResourceConfigForPod} (v1.20, PodOverhead on):
   *
   * <ul>
   *   <li>BestEffort: 2 shares only;
   *   <li>Burstable: shares from the cpu requests; the CFS quota from the cpu limits only when
   *       every app container limits cpu; the memory limit only when every app container limits
   *       memory;
   *   <li>Guaranteed: shares, quota and memory limit.
   * </ul>
   *
   * Without {@code cpuCfsQuota}, a quota that would be set is -1 (none). The pids limit is not set
   * here: it is the node's {@code podPidsLimit} (see {@link PodCgroups}).
   */
  public static ResourceConfig forPod(Pod pod, boolean cpuCfsQuota, long cpuPeriodMicros) {
    PodRequests.Totals totals = PodRequests.of(pod);
    long shares = CpuUnits.milliCpuToShares(totals.milliRequest(PodRequests.CPU));
    long quota =
        cpuCfsQuota
            ? CpuUnits.milliCpuToQuota(totals.milliLimit(PodRequests.CPU), cpuPeriodMicros)
            : -1;
    long memory = totals.limit(PodRequests.MEMORY);
    boolean cpuLimited = true;
    boolean memoryLimited = true;
    for (Container c : PodSpecs.containers(pod)) {
      var limits = PodRequests.limits(c);
      if (limits.get(PodRequests.CPU) == null || limits.get(PodRequests.CPU).signum() == 0) {
        cpuLimited = false;
      }
      if (limits.get(PodRequests.MEMORY) == null || limits.get(PodRequests.MEMORY).signum() == 0) {
        memoryLimited = false;
      }
    }
    return switch (QosClass.of(pod)) {
      case GUARANTEED ->
          shares(shares).withCpuQuota(quota, cpuPeriodMicros).withMemoryLimit(memory);
      case BURSTABLE -> {
        ResourceConfig c = shares(shares);
        if (cpuLimited) {
          c = c.withCpuQuota(quota, cpuPeriodMicros);
        }
        yield memoryLimited ? c.withMemoryLimit(memory) : c;
      }
      case BEST_EFFORT -> shares(CpuUnits.MIN_SHARES);
    };
  }
}
