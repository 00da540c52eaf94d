package io.jkubelet.agent.pleg;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PodCacheTest {
  private static final PodRef POD = new PodRef("uid-1", "web", "default");

  /** What a new pod worker asks for: anything newer than just before the epoch. */
  private static final Instant NEW_WORKER = Instant.EPOCH.minusNanos(1);

  @Test
  void beforeTheFirstRelistANewWorkerGetsNoStatusRatherThanAnEmptyOne() throws Exception {
    PodCache cache = new PodCache();

    // Nothing is known yet: the worker must look itself (after a restart the pod's containers may
    // well be running), not conclude that the runtime has nothing of the pod.
    assertThat(cache.getNewerThan(POD, NEW_WORKER, Duration.ZERO)).isEmpty();
  }

  @Test
  void afterARelistAPodItDidNotSeeHasAnEmptyStatus() throws Exception {
    PodCache cache = new PodCache();
    Instant relist = Instant.parse("2026-01-01T00:00:00Z");
    cache.updateTime(relist);

    var entry = cache.getNewerThan(POD, NEW_WORKER, Duration.ZERO);

    assertThat(entry).isPresent();
    assertThat(entry.get().status()).isEqualTo(PodStatus.empty(POD));
    assertThat(entry.get().modified()).isEqualTo(relist);
  }

  @Test
  void aStatusSetBeforeTheFirstRelistIsReturned() throws Exception {
    PodCache cache = new PodCache();
    Instant at = Instant.EPOCH;
    cache.set(POD, PodStatus.empty(POD), null, at);

    assertThat(cache.getNewerThan(POD, NEW_WORKER, Duration.ZERO)).isPresent();
  }

  @Test
  void itHasRelistedOnlyOnceARelistSawEveryPod() {
    PodCache cache = new PodCache();
    // A pod inspected by itself (a worker's own look, or the first relist still going on) is not
    // a relist of every pod.
    cache.set(POD, PodStatus.empty(POD), null, Instant.EPOCH);
    assertThat(cache.relisted()).isFalse();

    cache.updateTime(Instant.EPOCH);

    assertThat(cache.relisted()).isTrue();
  }
}
