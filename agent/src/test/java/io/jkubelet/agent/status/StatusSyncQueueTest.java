package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.status.SyncAttempt.Turn;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which pods the sync thread writes and when, on a fake clock. */
@Timeout(10)
class StatusSyncQueueTest {
  private static final Duration PERIOD = Duration.ofSeconds(10);
  private static final Map<String, Object> A = Map.of("phase", "Pending");
  private static final Map<String, Object> B = Map.of("phase", "Running");

  private final FakeClock clock = new FakeClock();
  private final StatusSyncQueue queue =
      new StatusSyncQueue(clock, PERIOD, new Backoff.Policy(Duration.ofSeconds(1), PERIOD));
  private final Pod pod = TestPods.simple("u1", "p", "app");
  private long version;

  private void change(String uid, Map<String, Object> semantic) {
    queue.changed(uid, ++version, semantic, false);
  }

  private SyncAttempt attempt(String uid, Map<String, Object> semantic) {
    Turn turn = queue.take(uid).orElseThrow();
    return new SyncAttempt(uid, pod, new PodStatus(), semantic, turn);
  }

  @Test
  void aChangeIsDueAtOnceAndAWrittenStatusIsNotWrittenAgain() throws InterruptedException {
    queue.open();
    change("u1", A);

    assertThat(queue.awaitWork().uids()).containsExactly("u1");
    queue.record(attempt("u1", A), StatusSyncResult.WRITTEN);
    change("u1", A);

    assertThat(queue.pending()).isZero();
    change("u1", B);
    assertThat(queue.dueNow()).containsExactly("u1");
  }

  @Test
  void awaitWrittenReturnsOnceThesePodsStatusesAreWritten() throws Exception {
    change("u1", A);
    change("u2", A);
    assertThat(queue.awaitWritten(List.of("u1"), Duration.ofMillis(20))).isFalse();
    SyncAttempt a = attempt("u1", A);
    Thread writer = Thread.ofVirtual().start(() -> queue.record(a, StatusSyncResult.WRITTEN));

    assertThat(queue.awaitWritten(List.of("u1", "never-set"), Duration.ofSeconds(5))).isTrue();
    writer.join();
    assertThat(queue.isDirty("u2")).isTrue();
    queue.close();
    assertThat(queue.awaitWritten(List.of("u2"), Duration.ofSeconds(5))).isFalse();
  }

  /** A sync that has begun took the pod off the dirty set; its write has not reached the API. */
  @Test
  void aWriteInFlightIsNotWrittenYet() throws Exception {
    change("u1", A);
    SyncAttempt a = attempt("u1", A);

    assertThat(queue.isDirty("u1")).isFalse();
    assertThat(queue.awaitWritten(List.of("u1"), Duration.ofMillis(20))).isFalse();
    queue.record(a, StatusSyncResult.WRITTEN);
    assertThat(queue.awaitWritten(List.of("u1"), Duration.ZERO)).isTrue();
  }

  @Test
  void failedSyncsAreRetriedWithADoublingDelayUpToThePeriod() {
    change("u1", A);
    List<Duration> delays = new java.util.ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      SyncAttempt a = attempt("u1", A);
      assertThat(a.attempt()).isEqualTo(i);
      delays.add(a.nextRetry());
      queue.record(a, StatusSyncResult.RETRY);
      assertThat(queue.dueNow()).isEmpty();
      clock.step(a.nextRetry());
      assertThat(queue.dueNow()).containsExactly("u1");
    }

    assertThat(delays)
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            PERIOD,
            PERIOD);
    queue.record(attempt("u1", A), StatusSyncResult.WRITTEN);
    change("u1", B);
    assertThat(attempt("u1", B).turn()).isEqualTo(new Turn(1, Duration.ofSeconds(1), false, A));
  }

  @Test
  void anOlderVersionIsIgnored() {
    queue.changed("u1", 2, B, false);
    queue.record(attempt("u1", B), StatusSyncResult.WRITTEN);

    queue.changed("u1", 1, A, false);

    assertThat(queue.pending()).isZero();
  }

  @Test
  void aGonePodIsNeverDueAgainButADeletionRequestMakesAPodDue() {
    change("u1", A);
    assertThat(queue.record(attempt("u1", A), StatusSyncResult.GONE)).isTrue();
    change("u1", B);
    assertThat(queue.pending()).isZero();
    assertThat(queue.take("u1")).isEmpty();

    change("u2", A);
    queue.record(attempt("u2", A), StatusSyncResult.IN_SYNC);
    queue.changed("u2", ++version, A, true);
    assertThat(queue.dueNow()).containsExactly("u2");
  }

  @Test
  void everyPodIsDueForARecheckEachPeriod() throws InterruptedException {
    queue.open();
    change("u1", A);
    change("u2", A);
    queue.record(attempt("u1", A), StatusSyncResult.WRITTEN);
    queue.record(attempt("u2", A), StatusSyncResult.WRITTEN);

    clock.step(PERIOD);

    StatusSyncQueue.Work work = queue.awaitWork();
    assertThat(work.full()).isTrue();
    assertThat(work.uids()).containsExactlyInAnyOrder("u1", "u2");
    queue.retainAll(Set.of("u2"));
    assertThat(queue.take("u1")).isEmpty();
  }

  @Test
  void closingEndsTheWaits() throws InterruptedException {
    queue.open();
    assertThat(queue.close()).isTrue();

    assertThat(queue.awaitWork()).isNull();
    assertThatThrownBy(() -> queue.pause(Duration.ofHours(1)))
        .isInstanceOf(InterruptedException.class);
    assertThat(queue.close()).isFalse();
    assertThat(queue.open()).isFalse();
  }

  @Test
  void aStaticPodWithoutMirrorWaitsWithoutCountingAFailure() {
    change("u1", A);
    SyncAttempt first = attempt("u1", A);
    queue.record(first, StatusSyncResult.NO_MIRROR);
    clock.step(first.nextRetry());

    SyncAttempt second = attempt("u1", A);
    assertThat(second.attempt()).isEqualTo(1);
    assertThat(second.nextRetry()).isEqualTo(Duration.ofSeconds(2));
  }
}
