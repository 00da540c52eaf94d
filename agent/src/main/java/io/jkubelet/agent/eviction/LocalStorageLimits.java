package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.pod.PodRequests;
import io.jkubelet.config.Quantities;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code localStorageEviction} (v1.20, LocalStorageCapacityIsolation on by default): a
 * pod is evicted at once, whatever the node's pressure, when an emptyDir uses more than its {@code
 * sizeLimit}, when the pod uses more local storage than its containers' {@code ephemeral-storage}
 * limits summed, or when a container uses more than its own limit. Checked in that order, every
 * {@link #PERIOD} (upstream's monitoring interval), with upstream's messages and {@code
 * kubelet_evictions} signals; the usage is the summary's (disk figures up to a minute old, as
 * upstream's).
 *
 * <p>Not thread-safe: the manager's thread only.
 */
final class LocalStorageLimits {
  private static final Logger log = LoggerFactory.getLogger(LocalStorageLimits.class);

  static final Duration PERIOD = Duration.ofSeconds(10);

  static final String EPHEMERAL_STORAGE = "ephemeral-storage";

  private final Set<String> evicted = new HashSet<>();
  private Instant last;

  /**
   * When a period has passed since the last check: each active pod with a limit is checked on its
   * usage, and {@code evict} is called, once, for each that went past one. Critical pods are never
   * evicted. Returns the pods evicted.
   */
  List<Pod> check(
      Instant now,
      Supplier<List<Pod>> activePods,
      Supplier<Map<String, PodUsage>> usage,
      BooleanSupplier dedicatedImageFs,
      BiConsumer<Pod, Exceeded> evict) {
    if (last != null && Duration.between(last, now).compareTo(PERIOD) < 0) {
      return List.of();
    }
    last = now;
    List<Pod> active = activePods.get();
    Set<String> live = new HashSet<>();
    active.forEach(p -> live.add(p.getMetadata().getUid()));
    evicted.retainAll(live);
    List<Pod> limited =
        active.stream()
            .filter(p -> !evicted.contains(p.getMetadata().getUid()))
            .filter(LocalStorageLimits::limited)
            .toList();
    if (limited.isEmpty()) {
      return List.of();
    }
    Map<String, PodUsage> used = usage.get();
    boolean dedicated = dedicatedImageFs.getAsBoolean();
    List<Pod> out = new ArrayList<>();
    for (Pod pod : limited) {
      Optional<Exceeded> e = exceeded(pod, used.get(pod.getMetadata().getUid()), dedicated);
      if (e.isEmpty()) {
        continue;
      }
      if (Ranking.critical(pod)) {
        log.error(
            "Eviction manager: cannot evict a critical pod {}/{}: {}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            e.get().message());
        continue;
      }
      evict.accept(pod, e.get());
      evicted.add(pod.getMetadata().getUid());
      out.add(pod);
    }
    return out;
  }

  /** A limit a pod went past: upstream's eviction signal and message. */
  record Exceeded(String signal, String message) {}

  /** Whether the pod has any local storage limit, so that its usage is worth reading. */
  static boolean limited(Pod pod) {
    if (pod.getSpec() == null) {
      return false;
    }
    for (Volume v : volumes(pod)) {
      if (sizeLimit(v).isPresent()) {
        return true;
      }
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (limit(c).isPresent()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The first limit the pod went past, or empty. {@code dedicatedImageFs}: writable layers are on
   * the image file system and count against no limit, as upstream.
   */
  static Optional<Exceeded> exceeded(Pod pod, PodUsage usage, boolean dedicatedImageFs) {
    if (usage == null || pod.getSpec() == null) {
      return Optional.empty();
    }
    PodUsage.Disk disk = usage.disk();
    for (Volume v : volumes(pod)) {
      Optional<Quantity> size = sizeLimit(v);
      Long used = disk.volumes().get(v.getName());
      if (size.isPresent() && used != null && used > bytes(size.get())) {
        return Optional.of(
            new Exceeded(
                "emptydirfs.limit",
                "Usage of EmptyDir volume \""
                    + v.getName()
                    + "\" exceeds the limit \""
                    + Ranking.canonical(size.get())
                    + "\". "));
      }
    }
    Optional<Long> podLimit = podLimit(pod);
    if (podLimit.isPresent()) {
      long used = 0;
      for (PodUsage.ContainerDisk c : disk.containers().values()) {
        used += c.againstLimit(dedicatedImageFs);
      }
      for (Volume v : volumes(pod)) {
        if (localEphemeral(v)) {
          used += disk.volumes().getOrDefault(v.getName(), 0L);
        }
      }
      if (used > podLimit.get()) {
        return Optional.of(
            new Exceeded(
                "ephemeralpodfs.limit",
                "Pod ephemeral local storage usage exceeds the total limit of containers "
                    + Quantities.binarySi(podLimit.get())
                    + ". "));
      }
    }
    for (Container c : pod.getSpec().getContainers()) {
      Optional<Quantity> limit = limit(c);
      PodUsage.ContainerDisk d = disk.containers().get(c.getName());
      if (limit.isPresent() && d != null && d.againstLimit(dedicatedImageFs) > bytes(limit.get())) {
        return Optional.of(
            new Exceeded(
                "ephemeralcontainerfs.limit",
                "Container "
                    + c.getName()
                    + " exceeded its local ephemeral storage limit \""
                    + Ranking.canonical(limit.get())
                    + "\". "));
      }
    }
    return Optional.empty();
  }

  private static List<Volume> volumes(Pod pod) {
    return pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
  }

  /** An emptyDir's positive size limit. */
  private static Optional<Quantity> sizeLimit(Volume v) {
    if (v.getEmptyDir() == null || v.getEmptyDir().getSizeLimit() == null) {
      return Optional.empty();
    }
    Quantity q = v.getEmptyDir().getSizeLimit();
    return bytes(q) > 0 ? Optional.of(q) : Optional.empty();
  }

  /** A container's non-zero ephemeral-storage limit. */
  private static Optional<Quantity> limit(Container c) {
    Map<String, Quantity> limits = c.getResources() == null ? null : c.getResources().getLimits();
    Quantity q = limits == null ? null : limits.get(EPHEMERAL_STORAGE);
    return q != null && bytes(q) != 0 ? Optional.of(q) : Optional.empty();
  }

  /**
   * Upstream's {@code PodRequestsAndLimits} for ephemeral storage ({@link PodRequests}): the
   * containers' limits summed, at least each init container's, plus the overhead; empty when no
   * container sets one.
   */
  private static Optional<Long> podLimit(Pod pod) {
    BigDecimal limit = PodRequests.of(pod).limits().get(PodRequests.EPHEMERAL_STORAGE);
    return limit == null ? Optional.empty() : Optional.of(PodRequests.value(limit));
  }

  /**
   * Upstream's {@code IsLocalEphemeralVolume}: gitRepo, disk-backed emptyDir, configMap,
   * downwardAPI.
   */
  private static boolean localEphemeral(Volume v) {
    return v.getGitRepo() != null
        || (v.getEmptyDir() != null && !"Memory".equals(v.getEmptyDir().getMedium()))
        || v.getConfigMap() != null
        || v.getDownwardAPI() != null;
  }

  private static long bytes(Quantity q) {
    BigDecimal b = Quantity.getAmountInBytes(q);
    return b.setScale(0, RoundingMode.CEILING).longValue();
  }
}
