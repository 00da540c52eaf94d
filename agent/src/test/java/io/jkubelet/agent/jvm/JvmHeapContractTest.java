package io.jkubelet.agent.jvm;

/** {@link HeapContract} on this JVM's heap. */
class JvmHeapContractTest extends HeapContract {
  @Override
  Heap heap() {
    for (int i = 0; i < 64; i++) {
      KEPT.add(new byte[16 << 10]);
    }
    return Heap.jvm().orElseThrow();
  }
}
