package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;

/** {@link ImagePulls} for tests that do not look at progress: not started, on a fake clock. */
public final class TestImagePulls {
  private TestImagePulls() {}

  public static ImagePulls unstarted(Runtime runtime, EventRecorder recorder, FakeClock clock) {
    return new ImagePulls(
        runtime,
        recorder,
        new Time(clock, d -> {}, new FakeSchedulers(clock)),
        io.jkubelet.config.ImageSettings.DEFAULTS,
        ImagePulls.Listener.NONE,
        io.jkubelet.agent.timeline.PodTimelines.NONE);
  }
}
