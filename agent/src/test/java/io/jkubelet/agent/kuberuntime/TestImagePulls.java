package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.time.Duration;

/** {@link ImagePulls} for tests that do not look at progress: not started, on a fake clock. */
public final class TestImagePulls {
  private TestImagePulls() {}

  public static ImagePulls unstarted(Runtime runtime, EventRecorder recorder, FakeClock clock) {
    return new ImagePulls(
        runtime,
        recorder,
        new Time(clock, d -> {}, new FakeSchedulers(clock)),
        Duration.ofMinutes(1),
        ImagePulls.Listener.NONE,
        io.jkubelet.agent.timeline.PodTimelines.NONE);
  }
}
