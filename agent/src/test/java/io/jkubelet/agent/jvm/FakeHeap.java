package io.jkubelet.agent.jvm;

/**
 * A heap whose old generation the test fills; a collection leaves {@code retained} bytes. Checked
 * against the JVM's own by {@link HeapContract}.
 */
final class FakeHeap implements Heap {
  private long used;
  private long live;
  private long retained;
  int collections;

  FakeHeap(long retained) {
    this.retained = retained;
  }

  /** Promotes {@code bytes} into the old generation. */
  synchronized void promote(long bytes) {
    used += bytes;
  }

  synchronized void retain(long bytes) {
    retained = bytes;
  }

  @Override
  public synchronized long oldUsed() {
    return used;
  }

  @Override
  public synchronized long oldLive() {
    return live;
  }

  @Override
  public synchronized void collect() {
    collections++;
    used = Math.min(used, retained);
    live = used;
  }
}
