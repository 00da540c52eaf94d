package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.config.Records;
import java.util.Objects;

/**
 * What the {@link EventCorrelator} decided about one event. Handle it with an exhaustive {@code
 * switch}.
 */
public sealed interface Correlation {

  /** The event the decision is about, as it should be written (or as it was refused). */
  Event event();

  /**
   * Write a new Event object (possibly an aggregate {@code "(combined from similar events): ..."}).
   */
  record Create(Event event) implements Correlation {
    public Create {
      Objects.requireNonNull(event, "event");
    }
  }

  /**
   * An identical event was seen: the existing object's count and lastTimestamp go up. {@code event}
   * carries the full updated object (same metadata.name as the earlier one, count, firstTimestamp
   * kept); {@code patch} is the JSON strategic-merge patch body {@code
   * {"count":N,"lastTimestamp":"...","message":"..."}} to send.
   */
  record Update(Event event, String patch) implements Correlation {
    public Update {
      Records.requireNonNull(Update.class, event, patch);
    }
  }

  /** Not written: the spam filter refused it. {@code cause} is a cause that drops. */
  record Drop(Event event, CorrelatorStats.Cause cause) implements Correlation {
    public Drop {
      Objects.requireNonNull(event, "event");
      if (!cause.dropped()) {
        throw new IllegalArgumentException("not a cause that drops: " + cause);
      }
    }
  }
}
