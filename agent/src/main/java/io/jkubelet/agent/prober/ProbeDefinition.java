package io.jkubelet.agent.prober;

import io.jkubelet.config.Records;
import java.util.Objects;

/** What {@link Probers#of} makes of a probe definition: a prober, or why there is none. */
public sealed interface ProbeDefinition
    permits ProbeDefinition.Valid, ProbeDefinition.InvalidProbe {

  /** A valid definition: the prober and the timing taken from the probe. */
  record Valid(Prober prober, ProbeSettings settings) implements ProbeDefinition {
    public Valid {
      Records.requireNonNull(Valid.class, prober, settings);
    }
  }

  /** An invalid definition, with a message fit for an event or a log line. */
  record InvalidProbe(String message) implements ProbeDefinition {
    public InvalidProbe {
      Objects.requireNonNull(message, "message");
    }
  }
}
