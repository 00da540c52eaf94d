package io.jkubelet.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.timeline.Timeline;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StartupMarksTest {
  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
  private final FakeClock clock = new FakeClock(T0);
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder =
      (o, type, reason, message) ->
          events.add(type + " " + reason + " " + o.getName() + ": " + message);
  private final PodTimelines timelines =
      PodTimelines.create(clock, null, PodTimelines.Listener.NONE);
  private final StartupMarks marks = new StartupMarks(timelines, recorder);
  private final Pod pod = TestPods.named("default", "web", "uid-web");
  private final PodRef ref = new PodRef("uid-web", "web", "default");

  StartupMarksTest() {
    pod.getSpec()
        .setInitContainers(
            List.of(new ContainerBuilder().withName("wait").withImage("busybox").build()));
  }

  private static ContainerStatus exited(String name, Instant finished, int code) {
    return new ContainerStatus(
        "id-" + name,
        name,
        "sandbox",
        ContainerState.EXITED,
        new ContainerStatus.Times(finished.minusSeconds(3), finished.minusSeconds(3), finished),
        new ContainerStatus.Exit(code, "", ""),
        new ContainerStatus.Origin("busybox", "", "", 0, Map.of()),
        0L);
  }

  private static io.fabric8.kubernetes.api.model.PodStatus api(String ready) {
    return new PodStatusBuilder()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready)
        .endCondition()
        .build();
  }

  @Test
  void anExitedInitContainerEndsItsPhaseAndTheFirstReadyRecordsOneEvent() {
    timelines.admission(pod).end();
    timelines.begin("uid-web", Phase.SANDBOX, null).end();
    timelines.begin("uid-web", Phase.INIT_CONTAINER, "wait");
    clock.step(Duration.ofSeconds(4));
    PodStatus runtime =
        new PodStatus(ref, List.of(), List.of(exited("wait", T0.plusSeconds(3), 0)));
    marks.observe(pod, runtime, api("False"));
    var app = timelines.begin("uid-web", Phase.CONTAINER, "app");
    clock.step(Duration.ofMillis(500));
    app.end();
    clock.step(Duration.ofMillis(200));

    marks.observe(pod, runtime, api("True"));
    marks.observe(pod, runtime, api("True"));

    assertThat(events)
        .containsExactly(
            "Normal StartupTimeline web: Ready 4.7s after admission; longest: init wait 3.0s,"
                + " container app 0.5s, readiness 0.2s");
    Timeline t = timelines.find("default", "web").orElseThrow();
    assertThat(t.phases().get(2).ended()).isEqualTo(T0.plusSeconds(3).toString());
  }

  @Test
  void aFailedInitContainerSaysItsExitCode() {
    timelines.admission(pod).end();
    timelines.begin("uid-web", Phase.INIT_CONTAINER, "wait");
    clock.step(Duration.ofSeconds(2));
    marks.observe(
        pod,
        new PodStatus(ref, List.of(), List.of(exited("wait", T0.plusSeconds(2), 1))),
        api("False"));

    Timeline.Entry init = timelines.find("default", "web").orElseThrow().phases().get(1);
    assertThat(init.error()).isEqualTo("exit code 1");
    assertThat(events).isEmpty();
  }
}
