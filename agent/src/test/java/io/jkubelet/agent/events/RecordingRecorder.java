package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An {@link EventRecorder} for tests: every {@link Occurrence}, with its time and annotations, goes
 * to a consumer ({@link #to}) or is kept ({@link #RecordingRecorder()}). Thread-safe.
 */
public final class RecordingRecorder implements EventRecorder {
  private final List<Occurrence> kept = new CopyOnWriteArrayList<>();
  private final Consumer<Occurrence> sink;

  /** Keeps every occurrence, for {@link #events} and {@link #reasons}. */
  public RecordingRecorder() {
    this.sink = kept::add;
  }

  private RecordingRecorder(Consumer<Occurrence> sink) {
    this.sink = sink;
  }

  /** A recorder that hands every occurrence to {@code sink}. */
  public static EventRecorder to(Consumer<Occurrence> sink) {
    return new RecordingRecorder(sink);
  }

  @Override
  public void event(ObjectReference involved, EventType type, String reason, String message) {
    emit(Occurrence.now(involved, type, reason, message));
  }

  @Override
  public void emit(Occurrence o) {
    sink.accept(o);
  }

  public List<Occurrence> events() {
    return List.copyOf(kept);
  }

  public List<String> reasons() {
    return kept.stream().map(Occurrence::reason).toList();
  }
}
