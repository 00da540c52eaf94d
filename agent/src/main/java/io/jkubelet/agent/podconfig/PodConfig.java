package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.podconfig.PodUpdate.Op;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the full pod sets that each source sends into incremental updates: ADD, UPDATE, DELETE,
 * REMOVE and RECONCILE, as upstream's {@code podStorage.merge} in {@code
 * pkg/kubelet/config/config.go}.
 *
 * <p>Each source is merged on its own, keyed by pod UID. A change to the spec, labels,
 * deletionTimestamp, deletion grace period or non-local annotations is an UPDATE (a DELETE when a
 * deletionTimestamp is set); a change to the status alone is a RECONCILE; a pod that vanished from
 * its source's set is a REMOVE. Two pods of one source with the same namespace and name: the one
 * already known wins, the other is rejected with a {@code FailedValidation} event.
 *
 * <p>Thread-safe: {@code lock} serialises merges, so sources may send from their own threads, and
 * updates leave in the order the merges happened.
 */
public final class PodConfig {
  private static final Logger log = LoggerFactory.getLogger(PodConfig.class);

  private final Clock clock;
  private final EventRecorder recorder;
  private final Consumer<PodUpdate> out;
  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private final Map<String, Map<String, Pod>> bySource = new HashMap<>();
  private final Set<String> expected = ConcurrentHashMap.newKeySet();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  // guarded by lock: "source/uid" of pods rejected as duplicates, reported once until resolved
  private final Set<String> reportedDuplicates = new HashSet<>();

  public PodConfig(Clock clock, EventRecorder recorder, Consumer<PodUpdate> out) {
    this.clock = clock;
    this.recorder = recorder;
    this.out = out;
  }

  /** Registers a source and returns where it sends its full set of pods. */
  public Consumer<List<Pod>> channel(String source) {
    expected.add(source);
    return pods -> merge(source, pods);
  }

  /** Whether every registered source has sent its first full set. */
  public boolean seenAllSources() {
    return seen.containsAll(expected);
  }

  /** The sources that have sent at least once. */
  public Set<String> seenSources() {
    return Set.copyOf(seen);
  }

  /** Merges one full set of pods from a source and sends what changed. */
  public void merge(String source, List<Pod> pods) {
    List<PodUpdate> updates;
    lock.lock();
    try {
      updates = mergeLocked(source, pods);
      seen.add(source);
      // Sent under the lock, so that updates leave in merge order.
      updates.forEach(out);
    } finally {
      lock.unlock();
    }
  }

  private List<PodUpdate> mergeLocked(String source, List<Pod> incoming) {
    Map<String, Pod> old = bySource.getOrDefault(source, Map.of());
    Map<String, Pod> next = new LinkedHashMap<>();
    List<Pod> adds = new ArrayList<>();
    List<Pod> updates = new ArrayList<>();
    List<Pod> deletes = new ArrayList<>();
    List<Pod> reconciles = new ArrayList<>();

    for (Pod ref : filterDuplicates(source, incoming, old)) {
      Pod pod = withAnnotation(ref, Annotations.CONFIG_SOURCE, source);
      String uid = pod.getMetadata().getUid();
      Pod existing = old.get(uid);
      if (existing == null) {
        pod = withAnnotation(pod, Annotations.CONFIG_SEEN, now());
        next.put(uid, pod);
        adds.add(pod);
        continue;
      }
      // Keep when it was first seen.
      pod =
          withAnnotation(
              pod,
              Annotations.CONFIG_SEEN,
              existing.getMetadata().getAnnotations().getOrDefault(Annotations.CONFIG_SEEN, now()));
      next.put(uid, pod);
      if (differSemantically(existing, pod)) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          deletes.add(pod);
        } else {
          updates.add(pod);
        }
      } else if (!Objects.equals(existing.getStatus(), pod.getStatus())) {
        reconciles.add(pod);
      } else {
        next.put(uid, existing);
      }
    }
    List<Pod> removes = new ArrayList<>();
    old.forEach(
        (uid, pod) -> {
          if (!next.containsKey(uid)) {
            removes.add(pod);
          }
        });
    bySource.put(source, next);

    List<PodUpdate> result = new ArrayList<>();
    addIfAny(result, Op.REMOVE, removes, source);
    addIfAny(result, Op.ADD, adds, source);
    addIfAny(result, Op.UPDATE, updates, source);
    addIfAny(result, Op.DELETE, deletes, source);
    addIfAny(result, Op.RECONCILE, reconciles, source);
    if (!result.isEmpty()) {
      log.debug(
          "PodConfig {}: {} removed, {} added, {} updated, {} deleted, {} reconciled",
          source,
          removes.size(),
          adds.size(),
          updates.size(),
          deletes.size(),
          reconciles.size());
    }
    return result;
  }

  /** Rejects the second and later pods with one full name; pods already known go first. */
  private List<Pod> filterDuplicates(String source, List<Pod> incoming, Map<String, Pod> old) {
    Set<String> knownNames = new HashSet<>();
    old.values().forEach(p -> knownNames.add(fullName(p)));
    List<Pod> ordered = new ArrayList<>();
    // Incumbents first: the pod already running under a name keeps it.
    incoming.stream().filter(p -> old.containsKey(p.getMetadata().getUid())).forEach(ordered::add);
    incoming.stream().filter(p -> !old.containsKey(p.getMetadata().getUid())).forEach(ordered::add);
    Set<String> names = new HashSet<>();
    Set<String> uids = new HashSet<>();
    List<Pod> kept = new ArrayList<>();
    Set<String> stillDuplicate = new HashSet<>();
    for (Pod p : ordered) {
      String name = fullName(p);
      if (!names.add(name) || !uids.add(p.getMetadata().getUid())) {
        String key = source + "/" + p.getMetadata().getUid();
        stillDuplicate.add(key);
        if (!reportedDuplicates.add(key)) {
          continue; // reported when it first appeared; the rescan finds it again
        }
        log.error(
            "PodConfig {}: rejecting pod {} (uid {}): duplicate pod name {}",
            source,
            name,
            p.getMetadata().getUid(),
            p.getMetadata().getName());
        recorder.eventf(
            Refs.pod(p),
            EventType.Warning,
            Reasons.FAILED_VALIDATION,
            "Error validating pod %s from %s due to duplicate pod name \"%s\", ignoring",
            name,
            source,
            p.getMetadata().getName());
        continue;
      }
      kept.add(p);
    }
    reportedDuplicates.removeIf(k -> k.startsWith(source + "/") && !stillDuplicate.contains(k));
    return kept;
  }

  static boolean differSemantically(Pod a, Pod b) {
    ObjectMeta ma = a.getMetadata();
    ObjectMeta mb = b.getMetadata();
    return !Objects.equals(a.getSpec(), b.getSpec())
        || !Objects.equals(nullToEmpty(ma.getLabels()), nullToEmpty(mb.getLabels()))
        || !Objects.equals(ma.getDeletionTimestamp(), mb.getDeletionTimestamp())
        || !Objects.equals(ma.getDeletionGracePeriodSeconds(), mb.getDeletionGracePeriodSeconds())
        || !Objects.equals(nonLocal(ma.getAnnotations()), nonLocal(mb.getAnnotations()));
  }

  private static Map<String, String> nonLocal(Map<String, String> annotations) {
    Map<String, String> m = new HashMap<>(nullToEmpty(annotations));
    m.keySet().removeAll(Annotations.LOCAL);
    return m;
  }

  private static Map<String, String> nullToEmpty(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }

  /** {@code namespace/name}. */
  public static String fullName(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }

  private static Pod withAnnotation(Pod pod, String key, String value) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    if (a != null && value.equals(a.get(key))) {
      return pod;
    }
    Map<String, String> copy = a == null ? new HashMap<>() : new HashMap<>(a);
    copy.put(key, value);
    Pod p = new io.fabric8.kubernetes.api.model.PodBuilder(pod).build();
    p.getMetadata().setAnnotations(copy);
    return p;
  }

  private String now() {
    return DateTimeFormatter.ISO_INSTANT.format(clock.instant());
  }

  private static void addIfAny(List<PodUpdate> result, Op op, List<Pod> pods, String source) {
    if (!pods.isEmpty()) {
      result.add(new PodUpdate(op, pods, source));
    }
  }
}
