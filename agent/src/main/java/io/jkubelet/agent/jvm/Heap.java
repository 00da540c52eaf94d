package io.jkubelet.agent.jvm;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Optional;

/** The old generation of the JVM's heap, as far as {@link HeapKeeper} needs it. */
public interface Heap {
  /** Bytes in use in the old generation now. */
  long oldUsed();

  /** Bytes in use in the old generation right after its last collection; 0 before the first. */
  long oldLive();

  /** A full collection, which also gives back the heap left free (the free ratios permitting). */
  void collect();

  /**
   * This JVM's heap: the pool of the old generation ({@code Tenured Gen} of the serial collector,
   * {@code G1 Old Gen}, {@code PS Old Gen}); empty when the collector has none (ZGC, Shenandoah,
   * Epsilon), where there is nothing to keep.
   */
  static Optional<Heap> jvm() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .filter(p -> p.getName().contains("Old Gen") || p.getName().contains("Tenured"))
        .findFirst()
        .map(JvmHeap::new);
  }

  /** The JVM's own old generation pool. */
  final class JvmHeap implements Heap {
    private final MemoryPoolMXBean old;

    JvmHeap(MemoryPoolMXBean old) {
      this.old = old;
    }

    @Override
    public long oldUsed() {
      return old.getUsage().getUsed();
    }

    @Override
    public long oldLive() {
      MemoryUsage u = old.getCollectionUsage();
      return u == null ? 0 : u.getUsed();
    }

    @Override
    public void collect() {
      System.gc();
    }
  }
}
