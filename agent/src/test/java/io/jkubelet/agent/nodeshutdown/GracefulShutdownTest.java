package io.jkubelet.agent.nodeshutdown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ShutdownSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node shutdown manager on a fake logind, fake pods and a fake clock: what a shutdown does to
 * the node, new pods and the running ones, in which order and within which time, and when the lock
 * is let go. The fake pods step the clock as a kill or a status write would take time.
 */
@Timeout(30)
class GracefulShutdownTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final Time time = new Time(clock, sleeper, new FakeSchedulers(clock));
  private final List<NodeShutdownManager> started = new ArrayList<>();

  @AfterEach
  void stop() {
    started.forEach(NodeShutdownManager::stop);
  }

  /** What the manager did to the pods, in order, each with the fake clock's time. */
  final class RecordingPods implements NodeShutdownManager.Pods {
    final List<Pod> pods;
    final List<String> log = new ArrayList<>();
    final List<PodStatus> statuses = new ArrayList<>();
    FakeLogind logind;

    /** How long each awaitStopped takes on the fake clock. */
    Duration stopTakes = Duration.ofSeconds(3);

    /** Whether the statuses are ever written. */
    boolean apiAnswers = true;

    RecordingPods(Pod... pods) {
      this.pods = List.of(pods);
    }

    @Override
    public List<Pod> active() {
      return pods;
    }

    @Override
    public Optional<PodStatus> status(Pod pod) {
      return Optional.empty();
    }

    @Override
    public synchronized void kill(Pod pod, PodStatus failed, Duration grace) {
      log.add(at() + " kill " + pod.getMetadata().getName() + " " + grace.toSeconds() + "s");
      statuses.add(failed);
    }

    @Override
    public synchronized boolean awaitStopped(Collection<Pod> list, Duration timeout) {
      log.add(at() + " awaitStopped " + list.size() + " within " + timeout.toSeconds() + "s");
      boolean done = stopTakes.compareTo(timeout) <= 0;
      clock.step(done ? stopTakes : timeout);
      return done;
    }

    @Override
    public synchronized boolean awaitStatusesWritten(Collection<Pod> list, Duration timeout) {
      log.add(
          at()
              + " awaitStatuses "
              + list.size()
              + " within "
              + timeout.toSeconds()
              + "s, lock held: "
              + logind.held());
      clock.step(apiAnswers ? Duration.ofSeconds(1) : timeout);
      return apiAnswers;
    }

    private long at() {
      return Duration.between(Instant.parse("2026-01-01T00:00:00Z"), clock.instant()).toSeconds();
    }
  }

  private static Pod pod(String name, Long grace, Map<String, String> annotations, Integer prio) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid("uid-" + name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(grace)
        .withPriority(prio)
        .endSpec()
        .build();
  }

  private NodeShutdownManager manager(
      Duration grace, Duration critical, RecordingPods pods, FakeLogind logind) {
    pods.logind = logind;
    NodeShutdownManager m =
        NodeShutdownManager.create(
            true,
            new NodeShutdownManager.Options(
                new ShutdownSettings(grace, critical), tmp.resolve("logind.conf.d")),
            pods,
            () -> logind,
            time);
    started.add(m);
    m.start();
    return m;
  }

  @Test
  void aShutdownStopsThePodsCriticalOnesLastAndLetsTheLockGoOnceTheirStatusesAreWritten() {
    RecordingPods pods =
        new RecordingPods(
            pod("web", 30L, Map.of(), null),
            pod("quick", 5L, Map.of(), null),
            pod("static", 30L, Map.of("kubernetes.io/config.source", "file"), null),
            pod("dns", 30L, Map.of(), 2_000_000_000));
    FakeLogind logind = new FakeLogind(null, Duration.ofSeconds(60));
    NodeShutdownManager m = manager(Duration.ofSeconds(30), Duration.ofSeconds(10), pods, logind);
    assertThat(logind.held()).isTrue();
    assertThat(m.shutdownStatus()).isEmpty();
    assertThat(m.admit(pods.pods.get(0))).isEmpty();

    logind.prepareForShutdown(true);

    assertThat(m.shutdownStatus()).contains("node is shutting down");
    assertThat(m.admit(pod("new", null, Map.of(), null)))
        .contains(
            new PodAdmitter.Refusal(
                "NodeShutdown", "Pod was rejected as the node is shutting down."));
    await().atMost(Duration.ofSeconds(10)).until(() -> !logind.held());
    synchronized (pods) {
      assertThat(pods.log)
          .containsExactly(
              "0 kill web 20s",
              "0 kill quick 5s",
              "0 awaitStopped 2 within 20s",
              "3 kill static 10s",
              "3 kill dns 10s",
              "3 awaitStopped 2 within 27s",
              "6 awaitStatuses 4 within 24s, lock held: true");
      assertThat(pods.statuses)
          .allSatisfy(
              s -> {
                assertThat(s.getPhase()).isEqualTo("Failed");
                assertThat(s.getReason()).isEqualTo("Shutdown");
                assertThat(s.getMessage()).isEqualTo("Node is shutting, evicting pods");
              });
    }
    assertThat(logind.calls()).doesNotContain("KillUnit systemd-logind.service");
  }

  @Test
  void slowPodsLeaveTheCriticalOnesAndTheStatusesOnlyWhatIsLeftOfTheGracePeriod() {
    RecordingPods pods =
        new RecordingPods(
            pod("slow", 60L, Map.of(), null),
            pod("mirror", 60L, Map.of("kubernetes.io/config.mirror", "x"), null));
    pods.stopTakes = Duration.ofSeconds(100);
    pods.apiAnswers = false;
    FakeLogind logind = new FakeLogind(null, Duration.ofSeconds(60));
    manager(Duration.ofSeconds(30), Duration.ofSeconds(10), pods, logind);

    logind.prepareForShutdown(true);

    await().atMost(Duration.ofSeconds(10)).until(() -> !logind.held());
    synchronized (pods) {
      assertThat(pods.log)
          .containsExactly(
              "0 kill slow 20s",
              "0 awaitStopped 1 within 20s",
              "20 kill mirror 10s",
              "20 awaitStopped 1 within 10s",
              "30 awaitStatuses 2 within 0s, lock held: true");
    }
  }

  @Test
  void aCancelledShutdownMakesTheNodeReadyAgainAndTakesTheLockAgain() {
    RecordingPods pods = new RecordingPods();
    FakeLogind logind = new FakeLogind(null, Duration.ofSeconds(60));
    NodeShutdownManager m = manager(Duration.ofSeconds(30), Duration.ZERO, pods, logind);
    logind.prepareForShutdown(true);
    await().atMost(Duration.ofSeconds(10)).until(() -> !logind.held());

    logind.prepareForShutdown(false);

    assertThat(m.shutdownStatus()).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(logind::held);
    assertThat(logind.locksTaken()).isEqualTo(2);
  }

  @Test
  void aDelayBelowTheGracePeriodIsRaisedByUpstreamsDropInAndALogindReload() throws Exception {
    Path dir = tmp.resolve("logind.conf.d");
    FakeLogind logind = new FakeLogind(dir, Duration.ofSeconds(5));
    NodeShutdownManager m =
        manager(Duration.ofSeconds(45), Duration.ofSeconds(15), new RecordingPods(), logind);

    assertThat(Files.readString(dir.resolve("99-kubelet.conf")))
        .isEqualTo("# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=45\n");
    assertThat(logind.calls())
        .containsSubsequence(
            "InhibitDelayMaxUSec", "KillUnit systemd-logind.service", "InhibitDelayMaxUSec");
    assertThat(logind.inhibitDelayMax()).isEqualTo(Duration.ofSeconds(45));
    assertThat(logind.held()).isTrue();
    assertThat(m.healthy().ok()).isTrue();
  }

  @Test
  void aDelayLogindKeepsLowFailsTheManagerWithUpstreamsWordsButNotTheAgent() {
    FakeLogind logind = new FakeLogind(null, Duration.ofSeconds(5));
    NodeShutdownManager m =
        manager(Duration.ofSeconds(30), Duration.ZERO, new RecordingPods(), logind);

    assertThat(m.healthy().ok()).isFalse();
    assertThat(m.healthy().message())
        .isEqualTo(
            "node shutdown manager: node shutdown manager was unable to update logind"
                + " InhibitDelayMaxSec to 30s (ShutdownGracePeriod), current value of"
                + " InhibitDelayMaxSec (5s) is less than requested ShutdownGracePeriod");
    assertThat(logind.held()).isFalse();
    assertThat(sleeper.sleeps()).hasSize(10);
    assertThat(m.shutdownStatus()).isEmpty();
  }

  @Test
  void withoutAGracePeriodOrWithTheGateOffThereIsNoManager() {
    FakeLogind logind = new FakeLogind();
    var off = new NodeShutdownManager.Options(ShutdownSettings.DEFAULTS, tmp);
    assertThat(NodeShutdownManager.create(true, off, new RecordingPods(), () -> logind, time))
        .isSameAs(NodeShutdownManager.NONE);
    var on =
        new NodeShutdownManager.Options(
            new ShutdownSettings(Duration.ofSeconds(30), Duration.ZERO), tmp);
    assertThat(NodeShutdownManager.create(false, on, new RecordingPods(), () -> logind, time))
        .isSameAs(NodeShutdownManager.NONE);
    assertThat(logind.calls()).isEmpty();
  }
}
