package io.jkubelet.agent.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link HeapKeeper} relies on, for the JVM's heap and for the tests' {@link FakeHeap}. */
abstract class HeapContract {
  /** A heap with something live in its old generation. */
  abstract Heap heap();

  /** Keeps objects alive across a collection, for the JVM. */
  static final List<Object> KEPT = new ArrayList<>();

  @Test
  void aCollectionRecordsWhatIsLiveAndUseDoesNotFallBelowIt() {
    Heap heap = heap();
    heap.collect();
    long live = heap.oldLive();
    assertThat(live).as("live after a collection").isPositive();
    assertThat(heap.oldUsed()).isGreaterThanOrEqualTo(live);
  }

  @Test
  void garbageInTheOldGenerationIsGoneAfterACollection() {
    Heap heap = heap();
    heap.collect();
    long live = heap.oldLive();
    heap.collect();
    assertThat(heap.oldLive())
        .as("nothing new was kept between two collections")
        .isLessThanOrEqualTo(live + (4L << 20));
  }
}
