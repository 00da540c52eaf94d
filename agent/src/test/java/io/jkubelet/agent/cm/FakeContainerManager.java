package io.jkubelet.agent.cm;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * A hand-written {@link ContainerManager} for the tests of the code that calls it: records calls
 * ({@code "ensurePod <uid>"}, {@code "updateQos <n>"}, {@code "cleanup <uids>"}), gives {@code
 * /kubepods/pod<uid>} as every pod's parent, and throws {@link #ensureError} from {@link
 * #ensurePod} when it is set. A pod's cgroup {@link #exists} once {@link #ensurePod} succeeded for
 * it or a test said so ({@link #existing}), until {@link #cleanup} leaves its uid out. Thread-safe:
 * every method is synchronized.
 */
public final class FakeContainerManager implements ContainerManager {
  private final List<String> calls = new ArrayList<>();
  private final Set<String> existing = new java.util.HashSet<>();
  private List<Removal> cleanupResult = List.of();
  private CgroupException ensureError;
  private CgroupException startError;
  private boolean started;

  @Override
  public synchronized void start() {
    calls.add("start");
    if (startError != null) {
      throw startError;
    }
    started = true;
  }

  /** Makes {@link #start} throw {@code e}; null stops it. */
  public synchronized void startError(CgroupException e) {
    startError = e;
  }

  @Override
  public synchronized void stop() {
    started = false;
    calls.add("stop");
  }

  @Override
  public synchronized Health healthy() {
    return started ? Health.OK : Health.failing("not started");
  }

  @Override
  public synchronized String cgroupParent(Pod pod) {
    return "/kubepods/pod" + pod.getMetadata().getUid();
  }

  @Override
  public synchronized boolean exists(Pod pod) {
    return existing.contains(pod.getMetadata().getUid());
  }

  @Override
  public synchronized List<String> podCgroupPaths(String uid) {
    return List.of("/kubepods/pod" + uid);
  }

  @Override
  public synchronized void ensurePod(Pod pod) {
    calls.add("ensurePod " + pod.getMetadata().getUid());
    if (ensureError != null) {
      throw ensureError;
    }
    existing.add(pod.getMetadata().getUid());
  }

  /** Says the cgroup of the pod with {@code uid} exists, as one made by an earlier jkubelet. */
  public synchronized void existing(String uid) {
    existing.add(uid);
  }

  @Override
  public synchronized List<Removal> cleanup(Set<String> activeUids) {
    calls.add("cleanup " + new java.util.TreeSet<>(activeUids));
    existing.retainAll(activeUids);
    return cleanupResult;
  }

  @Override
  public synchronized void updateQos(Collection<Pod> activePods) {
    calls.add("updateQos " + activePods.size());
  }

  /** The calls so far, in order. */
  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  /** Makes {@link #ensurePod} throw {@code e}; null stops it. */
  public synchronized void ensureError(CgroupException e) {
    ensureError = e;
  }

  /** What {@link #cleanup} returns. */
  public synchronized void cleanupResult(List<Removal> result) {
    cleanupResult = List.copyOf(result);
  }
}
