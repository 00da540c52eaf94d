package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A {@link Correlator} whose answer a test sets; it records what it was told was written.
 * Thread-safe.
 */
final class ScriptedCorrelator implements Correlator {
  private volatile Function<Event, Correlation> answer = Correlation.Create::new;
  private final List<Event> written = new ArrayList<>();

  ScriptedCorrelator answer(Function<Event, Correlation> answer) {
    this.answer = answer;
    return this;
  }

  /** Answers Update with a count patch for every event. */
  ScriptedCorrelator update(int count, String lastTimestamp) {
    return answer(
        e ->
            new Correlation.Update(
                e,
                "{\"count\":"
                    + count
                    + ",\"lastTimestamp\":\""
                    + lastTimestamp
                    + "\",\"message\":\""
                    + e.getMessage()
                    + "\"}"));
  }

  synchronized List<Event> written() {
    return List.copyOf(written);
  }

  @Override
  public Correlation correlate(Event event) {
    return answer.apply(event);
  }

  @Override
  public synchronized void updateState(Event w) {
    written.add(w);
  }

  @Override
  public CorrelatorStats stats() {
    return new CorrelatorStats(Map.of(), Map.of());
  }
}
