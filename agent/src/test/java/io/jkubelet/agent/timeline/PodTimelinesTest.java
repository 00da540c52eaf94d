package io.jkubelet.agent.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodTimelinesTest {
  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
  private final FakeClock clock = new FakeClock(T0);
  private final List<String> observed = new ArrayList<>();
  private final PodTimelines.Listener listener =
      (phase, took) -> observed.add(phase.metricLabel() + "=" + took.toMillis());

  @TempDir Path pods;

  private final Pod web = TestPods.named("default", "web", "uid-web");

  private PodTimelines timelines() {
    return PodTimelines.create(clock, pods, listener);
  }

  /** A start as a pod goes through it: 0.1 s admission, 0.6 s sandbox, 2.9 s pull, 0.3 s start. */
  private void start(PodTimelines t) {
    var admission = t.admission(web);
    clock.step(Duration.ofMillis(100));
    admission.end();
    var sandbox = t.begin("uid-web", Phase.SANDBOX, null);
    clock.step(Duration.ofMillis(100));
    var network = t.begin("uid-web", Phase.NETWORK, null);
    clock.step(Duration.ofMillis(500));
    network.end();
    sandbox.end();
    var volumes = t.begin("uid-web", Phase.VOLUMES, null);
    clock.step(Duration.ofMillis(50));
    volumes.end();
    var pull = t.begin("uid-web", Phase.IMAGE_PULL, "busybox");
    clock.step(Duration.ofMillis(2900));
    pull.end();
    var container = t.begin("uid-web", Phase.CONTAINER, "app");
    clock.step(Duration.ofMillis(300));
    container.end();
  }

  @Test
  void firstReadyClosesTheTimelineWithTheTotalAndTheThreeLongestPhases() {
    PodTimelines t = timelines();
    start(t);
    clock.step(Duration.ofMillis(250));

    Timeline done = t.ready("uid-web").orElseThrow();

    assertThat(done.summary())
        .isEqualTo(
            "Ready 4.2s after admission; longest: pull busybox 2.9s, sandbox 0.6s (network 0.5s),"
                + " container app 0.3s");
    assertThat(done.ready()).isEqualTo(T0.plusMillis(4200).toString());
    assertThat(done.phases())
        .extracting(Timeline.Entry::phase)
        .containsExactly(
            "admission", "sandbox", "network", "volumes", "pull", "container", "readiness");
    Timeline.Entry readiness = done.phases().get(6);
    assertThat(readiness.began()).isEqualTo(T0.plusMillis(3950).toString());
    assertThat(readiness.seconds()).isEqualTo(0.25);
    assertThat(t.ready("uid-web")).as("only the first Ready").isEmpty();
    assertThat(observed)
        .containsExactly(
            "admission=100",
            "network=500",
            "sandbox=600",
            "volumes=50",
            "image_pull=2900",
            "container_start=300",
            "readiness=250");
  }

  @Test
  void aPhaseDoneIsNotRecordedAgainAndNothingIsAfterReady() {
    PodTimelines t = timelines();
    start(t);
    assertThat(t.begin("uid-web", Phase.VOLUMES, null)).isSameAs(PodTimelines.Span.NONE);
    t.ready("uid-web");
    assertThat(t.begin("uid-web", Phase.CONTAINER, "other")).isSameAs(PodTimelines.Span.NONE);
    assertThat(t.find("default", "web").orElseThrow().phases()).hasSize(7);
  }

  @Test
  void aFailedPhaseBegunAgainKeepsItsFirstBeginAndCountsTheAttempts() {
    PodTimelines t = timelines();
    t.admission(web).end();
    t.begin("uid-web", Phase.IMAGE_PULL, "busybox").fail("rpc error: code = Unknown desc = nope");
    clock.step(Duration.ofSeconds(10));
    var again = t.begin("uid-web", Phase.IMAGE_PULL, "busybox");
    again.note("waited on the pull another pod started");
    clock.step(Duration.ofSeconds(2));
    again.end();

    Timeline.Entry pull = t.find("default", "web").orElseThrow().phases().get(1);
    assertThat(pull.attempts()).isEqualTo(2);
    assertThat(pull.error()).isNull();
    assertThat(pull.seconds()).isEqualTo(12.0);
    assertThat(pull.note()).isEqualTo("waited on the pull another pod started");
  }

  @Test
  void anInitContainerEndsWhenItIsSeenExitedAtTheEnginesTime() {
    PodTimelines t = timelines();
    t.admission(web).end();
    t.begin("uid-web", Phase.INIT_CONTAINER, "wait");
    clock.step(Duration.ofSeconds(5));
    t.ended("uid-web", Phase.INIT_CONTAINER, "wait", T0.plusSeconds(4), null);
    t.ended("uid-web", Phase.INIT_CONTAINER, "wait", T0.plusSeconds(5), null); // seen again

    Timeline.Entry init = t.find("default", "web").orElseThrow().phases().get(1);
    assertThat(init.ended()).isEqualTo(T0.plusSeconds(4).toString());
    assertThat(observed).contains("init_container=4000");
  }

  @Test
  void aRestartMidStartReadsTheFileBackAndSaysSo() throws Exception {
    PodTimelines before = timelines();
    before.admission(web).end();
    before.begin("uid-web", Phase.SANDBOX, null).end();
    before.begin("uid-web", Phase.INIT_CONTAINER, "wait");
    assertThat(pods.resolve("uid-web").resolve("timeline.json")).exists();

    clock.step(Duration.ofSeconds(30)); // jkubelet is down meanwhile
    PodTimelines after = timelines();
    after.admission(web).end(); // re-admitted at start: the admission is not recorded again
    after.ended("uid-web", Phase.INIT_CONTAINER, "wait", T0.plusSeconds(40), null);
    after.begin("uid-web", Phase.CONTAINER, "app").end();
    Timeline done = after.ready("uid-web").orElseThrow();

    assertThat(done.restarted()).isTrue();
    assertThat(done.phases())
        .extracting(Timeline.Entry::phase)
        .containsExactly(
            "admission", "sandbox", "init", "kubelet restarted", "container", "readiness");
    assertThat(done.phases().get(3).began()).isEqualTo(T0.plusSeconds(30).toString());
    assertThat(done.phases().get(2).ended()).isEqualTo(T0.plusSeconds(40).toString());
    assertThat(done.summary()).startsWith("Ready 30.0s after admission (jkubelet restarted");
  }

  @Test
  void aPodStartedBeforeWithNoFileGetsOnlyTheMarkerNeverMadeUpTimes() {
    Pod started = TestPods.named("default", "web", "uid-web");
    started.setStatus(new PodStatusBuilder().withStartTime("2026-11-28T09:00:00Z").build());
    PodTimelines t = timelines();
    t.admission(started).end();
    t.begin("uid-web", Phase.CONTAINER, "app").end();

    Timeline done = t.ready("uid-web").orElseThrow();
    assertThat(done.phases().get(0).phase()).isEqualTo("kubelet restarted");
    assertThat(done.phases()).extracting(Timeline.Entry::phase).doesNotContain("admission");
    assertThat(done.summary())
        .startsWith("Ready 0.0s after jkubelet restarted (earlier phases not recorded)");
  }

  @Test
  void aPodAlreadyReadyBeforeARestartGetsNoEvent() {
    Pod ready = TestPods.named("default", "web", "uid-web");
    ready.setStatus(
        new PodStatusBuilder()
            .withStartTime("2026-11-28T09:00:00Z")
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .build());
    PodTimelines t = timelines();
    t.admission(ready).end();
    assertThat(t.ready("uid-web")).isEmpty();
    assertThat(t.find("default", "web")).isEmpty();
  }

  @Test
  void aPodThisJkubeletSawNothingStartOfGetsNoEvent() {
    PodTimelines t = timelines(); // a static pod running before, with no file and no status
    t.admission(web).end();
    t.begin("uid-web", Phase.VOLUMES, null).end();
    assertThat(t.ready("uid-web")).isEmpty();
  }

  @Test
  void aRejectedPodWritesNoFileAndAForgottenPodIsGone() {
    PodTimelines t = timelines();
    t.admission(web).fail("rejected by admission");
    assertThat(Files.exists(pods.resolve("uid-web"))).isFalse();
    t.forget("uid-web");
    assertThat(t.find("default", "web")).isEmpty();
  }

  @Test
  void offRecordsNothing() {
    PodTimelines t = PodTimelines.NONE;
    t.admission(web).end();
    t.begin("uid-web", Phase.SANDBOX, null).end();
    assertThat(t.ready("uid-web")).isEmpty();
    assertThat(t.find("default", "web")).isEmpty();
    assertThat(t.enabled()).isFalse();
  }
}
