package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Upstream's LRU bound: the least recently used reason goes, and the eviction is counted. */
class ReasonCacheTest {
  @Test
  void upstreamsBoundIsTheDefault() {
    assertThat(ReasonCache.create().capacity()).isEqualTo(1000);
  }

  @Test
  void pastItsCapacityTheLeastRecentlyUsedGoesAndIsCounted() {
    ReasonCache cache = new ReasonCache(3);
    cache.add("p1", "a", "CrashLoopBackOff", "m");
    cache.add("p1", "b", "ErrImagePull", "m");
    cache.add("p2", "a", "CrashLoopBackOff", "m");
    assertThat(cache.get("p1", "a")).isPresent(); // p1/b is now the least recent
    cache.add("p3", "a", "CreateContainerError", "m");
    cache.add("p4", "a", "CreateContainerError", "m");

    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.evictions()).isEqualTo(2);
    assertThat(cache.get("p1", "b")).isEmpty();
    assertThat(cache.get("p2", "a")).isEmpty();
    assertThat(cache.get("p1", "a")).isPresent();
    assertThat(cache.get("p4", "a")).isPresent();
  }

  @Test
  void forgettingAPodIsNotAnEviction() {
    ReasonCache cache = new ReasonCache(3);
    cache.add("p1", "a", "CrashLoopBackOff", "m");
    cache.add("p1", "b", "CrashLoopBackOff", "m");
    cache.add("p10", "a", "CrashLoopBackOff", "m");
    cache.forgetPod("p1");
    assertThat(cache.size()).isEqualTo(1);
    assertThat(cache.get("p10", "a")).isPresent();
    assertThat(cache.evictions()).isZero();
  }
}
