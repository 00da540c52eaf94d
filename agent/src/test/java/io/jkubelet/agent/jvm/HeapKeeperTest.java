package io.jkubelet.agent.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HeapKeeperTest {
  private static final long MIB = 1L << 20;
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final FakeHeap heap = new FakeHeap(40 * MIB);
  private final HeapKeeper keeper =
      new HeapKeeper(
          heap,
          clock,
          schedulers,
          new HeapKeeper.Pace(Duration.ofMinutes(1), Duration.ofMinutes(5)));

  @AfterEach
  void stop() {
    keeper.stop();
  }

  @Test
  void whatStartUpPromotedIsCollectedAtTheFirstCheck() {
    heap.promote(70 * MIB); // 40 live, 30 garbage, never collected yet
    keeper.start();
    assertThat(keeper.healthy().ok()).isTrue();

    schedulers.advance(Duration.ofSeconds(59));
    assertThat(heap.collections).as("before the first check").isZero();
    schedulers.advance(Duration.ofSeconds(1));

    assertThat(heap.collections).isEqualTo(1);
    assertThat(heap.oldUsed()).isEqualTo(40 * MIB);
  }

  @Test
  void growthBelowAQuarterOfWhatWasLiveIsLeftAlone() {
    heap.promote(70 * MIB);
    heap.collect(); // 40 live
    keeper.start();

    heap.promote(9 * MIB);
    schedulers.advance(Duration.ofMinutes(10));

    assertThat(heap.collections).as("only the test's own").isEqualTo(1);
    assertThat(heap.oldUsed()).isEqualTo(49 * MIB);
  }

  @Test
  void growthBeyondAQuarterOfWhatWasLiveIsCollectedAtMostOncePerInterval() {
    heap.promote(40 * MIB);
    heap.collect();
    keeper.start();

    heap.promote(11 * MIB);
    schedulers.advance(Duration.ofMinutes(1));
    assertThat(heap.collections).isEqualTo(2);
    assertThat(heap.oldUsed()).isEqualTo(40 * MIB);

    heap.promote(30 * MIB);
    schedulers.advance(Duration.ofMinutes(4));
    assertThat(heap.collections).as("within five minutes of the last").isEqualTo(2);
    schedulers.advance(Duration.ofMinutes(1));
    assertThat(heap.collections).isEqualTo(3);
    assertThat(keeper.collections()).isEqualTo(2);
  }

  @Test
  void aSmallHeapIsNotCollectedForLessThanTheMinimumGrowth() {
    heap.retain(4 * MIB);
    heap.promote(4 * MIB);
    heap.collect(); // 4 live: a quarter of it is 1 MiB
    keeper.start();

    heap.promote(7 * MIB);
    schedulers.advance(Duration.ofMinutes(10));

    assertThat(heap.collections).isEqualTo(1);
  }

  @Test
  void theAgentsKeeperHoldsABurstWithinAFewTimesItsThreshold() {
    // As on a node whose 110 pods' containers were all killed and started again: 0.5 MiB promoted a
    // second, garbage by the next collection. Once a minute at most every 5 minutes, the old
    // generation reached 160 MiB above what was live.
    HeapKeeper agents = new HeapKeeper(heap, clock, schedulers, HeapKeeper.Pace.AGENT);
    heap.promote(40 * MIB);
    heap.collect();
    agents.start();
    long peak = 0;
    for (int s = 0; s < 600; s++) {
      heap.promote(MIB / 2);
      schedulers.advance(Duration.ofSeconds(1));
      peak = Math.max(peak, heap.oldUsed());
    }
    agents.stop();

    assertThat(peak - 40 * MIB).isLessThanOrEqualTo(25 * MIB);
    assertThat(agents.collections()).as("at most one every 30 s").isLessThanOrEqualTo(20);
  }

  @Test
  void notHealthyBeforeItStarts() {
    assertThat(keeper.healthy().ok()).isFalse();
  }
}
