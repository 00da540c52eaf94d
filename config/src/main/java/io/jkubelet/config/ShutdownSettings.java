package io.jkubelet.config;

import java.time.Duration;

/**
 * Graceful node shutdown, as upstream's {@code GracefulNodeShutdown} (v1.20 alpha, v1.21 beta):
 * fields of the file only, no flags, as upstream's. A {@code shutdownGracePeriod} above zero makes
 * the agent hold a logind delay inhibitor lock and stop the pods when the host shuts down. Upstream
 * v1.20 asks for the gate too; jkubelet, as v1.21, has the gate on unless {@code featureGates:
 * {GracefulNodeShutdown: false}} turns it off ({@link FeatureGates#gracefulNodeShutdown}). Checked
 * by {@link ConfigValidator}.
 */
public record ShutdownSettings(
    @Field(
            flag = Field.NO_FLAG,
            check = Checks.ShutdownPeriod.class,
            doc =
                "How long the node delays its shutdown to stop its pods (a logind delay inhibitor;"
                    + " logind's InhibitDelayMaxSec is raised to it by a drop-in); 0s: not at"
                    + " all. Critical pods get the last shutdownGracePeriodCriticalPods of it")
        Duration shutdownGracePeriod,
    @Field(
            flag = Field.NO_FLAG,
            check = Checks.ShutdownPeriod.class,
            doc =
                "The part of shutdownGracePeriod kept for critical pods (static, mirror, or of"
                    + " system-critical priority), stopped after the others")
        Duration shutdownGracePeriodCriticalPods)
    implements Validated {

  public static final ShutdownSettings DEFAULTS = Settings.defaults(ShutdownSettings.class, false);

  /** Whether a shutdown is handled at all: a grace period above zero. */
  public boolean enabled() {
    return shutdownGracePeriod.isPositive();
  }

  /** The time the pods that are not critical have: the grace period less the critical pods'. */
  public Duration nonCriticalPods() {
    return shutdownGracePeriod.minus(shutdownGracePeriodCriticalPods);
  }

  /** Upstream's rule, with its words: the critical pods' period within the whole. */
  @Override
  public void validate() {
    if (shutdownGracePeriodCriticalPods.compareTo(shutdownGracePeriod) > 0) {
      throw new ConfigException(
          "shutdownGracePeriodCriticalPods",
          "invalid configuration: ShutdownGracePeriod "
              + Durations.format(shutdownGracePeriod)
              + " must be >= 0, ShutdownGracePeriodCriticalPods "
              + Durations.format(shutdownGracePeriodCriticalPods)
              + " must be >= 0, and ShutdownGracePeriodCriticalPods "
              + Durations.format(shutdownGracePeriodCriticalPods)
              + " must be <= ShutdownGracePeriod "
              + Durations.format(shutdownGracePeriod));
    }
  }
}
