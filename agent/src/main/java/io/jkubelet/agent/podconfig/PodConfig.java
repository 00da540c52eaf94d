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
import java.util.EnumMap;
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

  /** The order in which one merge's updates leave, as upstream. */
  private static final List<Op> ORDER =
      List.of(Op.REMOVE, Op.ADD, Op.UPDATE, Op.DELETE, Op.RECONCILE);

  private final Clock clock;
  private final EventRecorder recorder;
  private final Consumer<PodUpdate> out;
  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock
  private final Map<Source, Map<String, Pod>> bySource = new EnumMap<>(Source.class);

  /**
   * What each source last sent, by UID, before annotation: a pod the source sends again unchanged
   * (the same object, or the same resourceVersion) is neither copied nor compared again. The API
   * source sends its whole store after every change, so without this every status update of one pod
   * copied and compared all of them.
   */
  private final Map<Source, Map<String, Pod>> sentBySource = new EnumMap<>(Source.class);

  private final Set<Source> expected = ConcurrentHashMap.newKeySet();
  private final Set<Source> seen = ConcurrentHashMap.newKeySet();
  // guarded by lock: per source, the UIDs of pods rejected as duplicates, reported once until
  // resolved
  private final Map<Source, Set<String>> reportedDuplicates = new EnumMap<>(Source.class);

  public PodConfig(Clock clock, EventRecorder recorder, Consumer<PodUpdate> out) {
    this.clock = clock;
    this.recorder = recorder;
    this.out = out;
  }

  /** Registers a source and returns where it sends its full set of pods. */
  public Consumer<List<Pod>> channel(Source source) {
    expected.add(source);
    return pods -> merge(source, pods);
  }

  /** Whether every registered source has sent its first full set. */
  public boolean seenAllSources() {
    return seen.containsAll(expected);
  }

  /** Merges one full set of pods from a source and sends what changed. */
  public void merge(Source source, List<Pod> pods) {
    List<PodUpdate> updates;
    lock.lock();
    try {
      updates = mergeLocked(source, pods);
      // Sent under the lock, so that updates leave in merge order; the source counts as seen only
      // once they are on their way (loop.SourcesReady relies on it).
      updates.forEach(out);
      seen.add(source);
    } finally {
      lock.unlock();
    }
  }

  private List<PodUpdate> mergeLocked(Source source, List<Pod> incoming) {
    Map<String, Pod> old = bySource.getOrDefault(source, Map.of());
    Map<String, Pod> oldSent = sentBySource.getOrDefault(source, Map.of());
    Map<String, Pod> next = new LinkedHashMap<>();
    Map<String, Pod> nextSent = new HashMap<>();
    Map<Op, List<Pod>> changes = new EnumMap<>(Op.class);
    for (Pod ref : filterDuplicates(source, incoming, old)) {
      String uid = ref.getMetadata().getUid();
      nextSent.put(uid, ref);
      Pod existing = old.get(uid);
      if (existing != null && sameVersion(oldSent.get(uid), ref)) {
        next.put(uid, existing);
        continue;
      }
      Pod pod = annotated(ref, source, existing);
      Op op = existing == null ? Op.ADD : change(existing, pod);
      if (op == null) {
        next.put(uid, existing);
      } else {
        next.put(uid, pod);
        changes.computeIfAbsent(op, k -> new ArrayList<>()).add(pod);
      }
    }
    old.forEach(
        (uid, pod) -> {
          if (!next.containsKey(uid)) {
            changes.computeIfAbsent(Op.REMOVE, k -> new ArrayList<>()).add(pod);
          }
        });
    bySource.put(source, next);
    sentBySource.put(source, nextSent);

    List<PodUpdate> result = new ArrayList<>();
    for (Op op : ORDER) {
      List<Pod> pods = changes.get(op);
      if (pods != null) {
        result.add(new PodUpdate(op, pods, source));
      }
    }
    if (!result.isEmpty()) {
      log.debug(
          "PodConfig {}: {} removed, {} added, {} updated, {} deleted, {} reconciled",
          source.annotation(),
          count(changes, Op.REMOVE),
          count(changes, Op.ADD),
          count(changes, Op.UPDATE),
          count(changes, Op.DELETE),
          count(changes, Op.RECONCILE));
    }
    return result;
  }

  /**
   * The pod with its source annotation, and when it was first seen (kept from {@code existing}).
   */
  private Pod annotated(Pod ref, Source source, Pod existing) {
    String firstSeen =
        existing == null
            ? now()
            : existing.getMetadata().getAnnotations().getOrDefault(Annotations.CONFIG_SEEN, now());
    return withAnnotations(
        ref,
        Map.of(Annotations.CONFIG_SOURCE, source.annotation(), Annotations.CONFIG_SEEN, firstSeen));
  }

  /** Whether a source sent the same version of a pod again: the same object or resourceVersion. */
  private static boolean sameVersion(Pod before, Pod now) {
    if (before == null) {
      return false;
    }
    String rv = now.getMetadata().getResourceVersion();
    return before == now
        || (rv != null && !rv.isEmpty() && rv.equals(before.getMetadata().getResourceVersion()));
  }

  /** What changed from {@code existing} to {@code pod}, or null when nothing did. */
  private static Op change(Pod existing, Pod pod) {
    if (differSemantically(existing, pod)) {
      return pod.getMetadata().getDeletionTimestamp() != null ? Op.DELETE : Op.UPDATE;
    }
    return Objects.equals(existing.getStatus(), pod.getStatus()) ? null : Op.RECONCILE;
  }

  private static int count(Map<Op, List<Pod>> changes, Op op) {
    return changes.getOrDefault(op, List.of()).size();
  }

  /** Rejects the second and later pods with one full name; pods already known go first. */
  private List<Pod> filterDuplicates(Source source, List<Pod> incoming, Map<String, Pod> old) {
    List<Pod> ordered = new ArrayList<>();
    // Incumbents first: the pod already running under a name keeps it.
    incoming.stream().filter(p -> old.containsKey(p.getMetadata().getUid())).forEach(ordered::add);
    incoming.stream().filter(p -> !old.containsKey(p.getMetadata().getUid())).forEach(ordered::add);
    Set<String> reported = reportedDuplicates.computeIfAbsent(source, k -> new HashSet<>());
    Set<String> names = new HashSet<>();
    Set<String> uids = new HashSet<>();
    Set<String> stillDuplicate = new HashSet<>();
    List<Pod> kept = new ArrayList<>();
    for (Pod p : ordered) {
      String uid = p.getMetadata().getUid();
      if (names.add(fullName(p)) && uids.add(uid)) {
        kept.add(p);
      } else if (stillDuplicate.add(uid) && reported.add(uid)) {
        rejectDuplicate(source, p); // else reported when it first appeared
      }
    }
    reported.retainAll(stillDuplicate);
    return kept;
  }

  private void rejectDuplicate(Source source, Pod p) {
    String name = fullName(p);
    log.error(
        "PodConfig {}: rejecting pod {} (uid {}): duplicate pod name {}",
        source.annotation(),
        name,
        p.getMetadata().getUid(),
        p.getMetadata().getName());
    recorder.eventf(
        Refs.pod(p),
        EventType.Warning,
        Reasons.FAILED_VALIDATION,
        "Error validating pod %s from %s due to duplicate pod name \"%s\", ignoring",
        name,
        source.annotation(),
        p.getMetadata().getName());
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

  /** The pod with these annotations: itself when it has them, else a copy. */
  private static Pod withAnnotations(Pod pod, Map<String, String> added) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    if (a != null && a.entrySet().containsAll(added.entrySet())) {
      return pod;
    }
    Map<String, String> copy = a == null ? new HashMap<>() : new HashMap<>(a);
    copy.putAll(added);
    Pod p = new io.fabric8.kubernetes.api.model.PodBuilder(pod).build();
    p.getMetadata().setAnnotations(copy);
    return p;
  }

  private String now() {
    return DateTimeFormatter.ISO_INSTANT.format(clock.instant());
  }
}
