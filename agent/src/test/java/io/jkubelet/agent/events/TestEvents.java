package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.FakeClock;

/** Events for tests, made by a real {@link BroadcastRecorder} on a fake clock. */
final class TestEvents {
  private TestEvents() {}

  static Pod pod(String namespace, String name, String uid) {
    return TestPods.builder(namespace, name, uid).build();
  }

  /** A recorder whose events only {@link BroadcastRecorder#make} builds; nothing is broadcast. */
  static BroadcastRecorder recorder(FakeClock clock) {
    return new BroadcastRecorder(clock, "node1", EventBroadcaster.create());
  }

  static Event podEvent(
      BroadcastRecorder recorder, Pod pod, EventType type, String reason, String message) {
    return recorder.make(Occurrence.now(Refs.pod(pod), type, reason, message));
  }
}
