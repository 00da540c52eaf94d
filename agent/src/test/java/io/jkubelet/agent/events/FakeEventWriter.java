package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A hand-written {@link EventWriter}: records every call and answers from scripted failures (one
 * per call, in order) before succeeding. Thread-safe: every method is {@code synchronized}.
 */
final class FakeEventWriter implements EventWriter {
  /** One recorded call: "create" or "patch", the event, and the patch body (null for create). */
  record Call(String op, Event event, String patch) {}

  private final List<Call> calls = new ArrayList<>();
  private final Deque<EventWriteException> createFailures = new ArrayDeque<>();
  private final Deque<EventWriteException> patchFailures = new ArrayDeque<>();

  /** The next creates fail with these HTTP codes (0: no answer), in order. */
  synchronized FakeEventWriter failCreates(int... codes) {
    for (int c : codes) {
      createFailures.add(new EventWriteException(c, "fake failure " + c));
    }
    return this;
  }

  /** The next patches fail with these HTTP codes, in order. */
  synchronized FakeEventWriter failPatches(int... codes) {
    for (int c : codes) {
      patchFailures.add(new EventWriteException(c, "fake failure " + c));
    }
    return this;
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  synchronized List<String> ops() {
    return calls.stream().map(Call::op).toList();
  }

  @Override
  public synchronized Event create(Event event) throws EventWriteException {
    calls.add(new Call("create", new EventBuilder(event).build(), null));
    EventWriteException e = createFailures.poll();
    if (e != null) {
      throw e;
    }
    return new EventBuilder(event).editMetadata().withResourceVersion("1").endMetadata().build();
  }

  @Override
  public synchronized Event patch(Event event, String patch) throws EventWriteException {
    calls.add(new Call("patch", new EventBuilder(event).build(), patch));
    EventWriteException e = patchFailures.poll();
    if (e != null) {
      throw e;
    }
    return new EventBuilder(event).editMetadata().withResourceVersion("2").endMetadata().build();
  }
}
