package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ImagePullerTest {
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime = new FakeRuntime(clock, "present:1");
  private final List<String> events = new ArrayList<>();
  private final ImagePuller puller =
      new ImagePuller(
          new ImagePuller.Deps(
              runtime,
              (o, t, reason, msg) -> events.add(reason + ": " + msg),
              clock,
              new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5)),
              Duration.ofMinutes(1),
              PullCredentials.NONE,
              TestImagePulls.unstarted(runtime, EventRecorder.NOOP, clock)));
  private final Pod pod = TestPods.simple("u1", "p", "c");

  private Container container(String image, String policy) {
    Container c = pod.getSpec().getContainers().get(0);
    c.setImage(image);
    c.setImagePullPolicy(policy);
    return c;
  }

  private String reason(Container c) {
    try {
      puller.ensure(pod, c, Refs.container(pod, "c", false));
      return "ok";
    } catch (StartException f) {
      return f.reason();
    }
  }

  private long pulls() {
    return runtime.calls().stream().filter(s -> s.startsWith("pullImage")).count();
  }

  @Test
  void imagesSeenPresentAreRememberedOnlyForAFewSeconds() {
    for (int i = 0; i < 20; i++) {
      runtime.addImage("img:" + i);
      assertThat(puller.present("img:" + i)).isTrue();
      clock.step(Duration.ofSeconds(1));
    }
    // Only those seen within the TTL (5 s) are kept, not every image the node ever ran.
    assertThat(puller.presentCacheSize()).isEqualTo(5);
    clock.step(Duration.ofSeconds(10));
    runtime.addImage("other:1");
    assertThat(puller.present("other:1")).isTrue();
    assertThat(puller.presentCacheSize()).isEqualTo(1);
  }

  @Test
  void ifNotPresentUsesAPresentImageWithoutPulling() {
    assertThat(reason(container("present:1", "IfNotPresent"))).isEqualTo("ok");
    assertThat(pulls()).isZero();
    assertThat(events)
        .containsExactly("Pulled: Container image \"present:1\" already present on machine");
  }

  @Test
  void alwaysPullsEvenAPresentImage() {
    // No registry answers the fake: the pull fails, as it would here for Always.
    assertThat(reason(container("present:1", "Always"))).isEqualTo("ErrImagePull");
    assertThat(pulls()).isEqualTo(1);
    assertThat(events).contains("Pulling: Pulling image \"present:1\"");
  }

  @Test
  void neverDoesNotPullAMissingImage() {
    assertThat(reason(container("missing:1", "Never"))).isEqualTo("ErrImageNeverPull");
    assertThat(pulls()).isZero();
    assertThat(events)
        .containsExactly(
            "ErrImageNeverPull: Container image \"missing:1\" is not present with pull policy of Never");
  }

  @Test
  void aFailedPullBacksOffBeforeTheNextTry() {
    Container c = container("missing:1", "IfNotPresent");
    assertThat(reason(c)).isEqualTo("ErrImagePull");
    assertThat(events).anyMatch(e -> e.startsWith("Failed: Failed to pull image \"missing:1\""));
    clock.step(Duration.ofSeconds(9));
    assertThat(reason(c)).isEqualTo("ImagePullBackOff");
    assertThat(pulls()).isEqualTo(1);
    clock.step(Duration.ofSeconds(1));
    assertThat(reason(c)).as("tried again after 10 s").isEqualTo("ErrImagePull");
    assertThat(pulls()).isEqualTo(2);
    clock.step(Duration.ofSeconds(19));
    assertThat(reason(c)).as("then 20 s").isEqualTo("ImagePullBackOff");
  }

  @Test
  void anInvalidImageNameIsRejectedWithoutAsking() {
    assertThatThrownBy(
            () -> puller.ensure(pod, container("bad image", "IfNotPresent"), Refs.pod(pod)))
        .isInstanceOf(StartException.class)
        .extracting(e -> ((StartException) e).reason())
        .isEqualTo("InvalidImageName");
  }
}
