package io.jkubelet.agent.oom;

import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Schedulers;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where the OOM watch reads what the kernel's OOM killer did: a container's memory cgroup (its
 * counters, {@link MemoryCounters}) and the kernel log's kill records ({@link KernelKill}), read
 * for the node, not per container.
 *
 * <p>{@link #forHost} reads {@code /sys/fs/cgroup} and {@code /dev/kmsg}; tests give a fake. The
 * kernel log is often not readable (no {@code CAP_SYSLOG} with {@code kernel.dmesg_restrict}, or no
 * {@code /dev/kmsg} in a container): then {@link #kernelLogMissing} says why, and the kills are
 * known from the cgroup's counters only.
 *
 * <p>Implementations are thread-safe.
 */
public interface OomSource extends Lifecycle {

  /** Reads nothing: no counters, no kernel log. */
  OomSource NONE = new NoOomSource();

  /**
   * This host's cgroups under {@code cgroupRoot} and its kernel log at {@code kmsg}, read on a
   * scheduler of {@code schedulers}; starts nothing.
   *
   * @param podCgroups by pod uid, the paths below a hierarchy where the pod's cgroup may be
   */
  static OomSource forHost(
      Path cgroupRoot,
      Path kmsg,
      Function<String, List<String>> podCgroups,
      Schedulers schedulers) {
    return new HostOomSource(new CgroupMemory(cgroupRoot, podCgroups), kmsg, schedulers);
  }

  /** The counters of the container's memory cgroup; empty when it is gone or not found. */
  Optional<MemoryCounters> counters(String podUid, String containerId);

  /**
   * The kills the kernel log reported in the container's cgroup since the last call for it, oldest
   * first: each kill is given once. Those older than the last few hundred kills on the node are
   * forgotten.
   */
  List<KernelKill> takeKills(String containerId);

  /** Why the kernel log is not read (what the events then leave out); empty while it is read. */
  Optional<String> kernelLogMissing();

  /**
   * Calls {@code listener} with each kill as the kernel log is read, on the reading thread: it must
   * return quickly. It is called holding no lock of the source's, and never from {@link
   * #takeKills}'s caller's thread, so it may wait on a lock that a caller of takeKills holds around
   * it (a pod's, in {@code kuberuntime.OomEvents}). Set before {@link #start()}.
   */
  void onKill(Consumer<KernelKill> listener);
}
