package io.jkubelet.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How a pod being deleted is watched: jkubelet's own {@code terminationStuckAfter}, which upstream
 * has no counterpart of. Checked by {@link ConfigValidator}; this record only rejects nulls.
 */
public record TerminationSettings(
    @Field(
            flag = "--termination-stuck-after",
            value = "30s",
            check = Checks.Positive.class,
            doc =
                "jkubelet's own: a pod still not gone this long after its deletion's grace period"
                    + " gets a Warning TerminationStuck naming what holds it (a container, a"
                    + " preStop hook, a volume, a runtime call), repeated at a doubling interval")
        Duration terminationStuckAfter) {

  public static final TerminationSettings DEFAULTS =
      Settings.defaults(TerminationSettings.class, false);

  public TerminationSettings {
    Objects.requireNonNull(terminationStuckAfter, "terminationStuckAfter");
  }
}
