package io.jkubelet.agent.eviction;

import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.NodeReading;
import io.jkubelet.config.EvictionSettings.Signal;
import java.util.EnumMap;
import java.util.Map;

/**
 * The signals from the node's reading, the one {@code /stats/summary} reports, as upstream's {@code
 * makeSignalObservations} builds them from its summary:
 *
 * <ul>
 *   <li>{@code memory.available}: the node memory's {@code availableBytes}, out of {@code
 *       availableBytes + workingSetBytes};
 *   <li>{@code allocatableMemory.available}: the same of the {@code pods} system container ({@code
 *       kubepods}), when it has a limit;
 *   <li>{@code nodefs.*} and {@code imagefs.*}: {@code availableBytes} of {@code capacityBytes},
 *       {@code inodesFree} of {@code inodes};
 *   <li>{@code pid.available}: {@code maxpid - curproc} of {@code maxpid}.
 * </ul>
 *
 * Each observation has its part's time. Called from the eviction manager's thread only.
 */
public record SummarySignals(NodeReader node) implements Readers.SignalReader {
  @Override
  public Map<Signal, Observation> read(boolean memoryOnly) {
    return observations(node.read(memoryOnly));
  }

  /** Upstream's {@code makeSignalObservations}, on the node's reading. */
  static Map<Signal, Observation> observations(NodeReading r) {
    Map<Signal, Observation> out = new EnumMap<>(Signal.class);
    memory(out, Signal.MEMORY_AVAILABLE, r.memory());
    memory(out, Signal.ALLOCATABLE_MEMORY_AVAILABLE, r.pods());
    fs(out, Signal.NODEFS_AVAILABLE, Signal.NODEFS_INODES_FREE, r.fs());
    fs(out, Signal.IMAGEFS_AVAILABLE, Signal.IMAGEFS_INODES_FREE, r.imageFs());
    if (r.rlimit() != null) {
      NodeReading.Rlimit l = r.rlimit();
      out.put(
          Signal.PID_AVAILABLE, new Observation(l.maxPid() - l.processes(), l.maxPid(), l.time()));
    }
    return out;
  }

  private static void memory(Map<Signal, Observation> out, Signal s, NodeReading.Memory m) {
    if (m != null && m.availableBytes() != null) {
      out.put(
          s,
          new Observation(m.availableBytes(), m.availableBytes() + m.workingSetBytes(), m.time()));
    }
  }

  private static void fs(
      Map<Signal, Observation> out, Signal bytes, Signal inodes, NodeReading.Fs f) {
    if (f == null) {
      return;
    }
    out.put(bytes, new Observation(f.availableBytes(), f.capacityBytes(), f.time()));
    if (f.inodesFree() != null && f.inodes() != null) {
      out.put(inodes, new Observation(f.inodesFree(), f.inodes(), f.time()));
    }
  }
}
