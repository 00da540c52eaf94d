package io.jkubelet.agent.jvm;

/** {@link HeapContract} on the tests' {@link FakeHeap}. */
class FakeHeapContractTest extends HeapContract {
  @Override
  Heap heap() {
    FakeHeap h = new FakeHeap(1 << 20);
    h.promote(40L << 20);
    return h;
  }
}
