package io.jkubelet.agent.node;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link EventRecorder} that keeps every event, for tests. Thread-safe. */
final class RecordingRecorder implements EventRecorder {
  record Event(ObjectReference involved, EventType type, String reason, String message) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();

  @Override
  public void event(ObjectReference involved, EventType type, String reason, String message) {
    events.add(new Event(involved, type, reason, message));
  }

  List<Event> events() {
    return List.copyOf(events);
  }

  List<String> reasons() {
    return events.stream().map(Event::reason).toList();
  }
}
