package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Time;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Image garbage collection, as upstream's {@code realImageGCManager} and the image half of {@code
 * StartGarbageCollection}: every period (upstream's 5 minutes) it records each image's first
 * detection and last use, and when the image file system's usage is at or above the high threshold
 * it deletes unused images, least recently used first (ties: detected first), until usage is down
 * to the low threshold.
 *
 * <p>Never deleted: an image any container on the engine uses (jkubelet's or not, running or not:
 * {@link ImageService#imagesInUse()}), the sandbox image, and an image known for less than the
 * minimum age. The first detection after {@link #start()} records the images present as detected at
 * the epoch, as upstream's does with Go's zero time: they count as old enough at once.
 *
 * <p>Events on the Node, as upstream's: {@code FreeDiskSpaceFailed} when a run frees less than it
 * wanted, {@code ImageGCFailed} when runs fail twice in a row, {@code InvalidDiskCapacity} for a
 * file system of size 0. Better than upstream (kubernetes#71869): a run that frees nothing, with
 * the same images on the node as the last run that freed nothing, reports neither event again (it
 * logs at debug); a change of the images, a run that frees something, or a run below the threshold
 * re-arms them.
 *
 * <p>Thread-safe: {@link #deleteUnusedImages()} may run beside the periodic run; {@code lock}
 * guards {@code records}, {@code lastFruitless} and {@code previousFailed}, and is held for a whole
 * detection and deletion, so runs take turns.
 */
final class RealImageGcManager implements ImageGcManager {
  private static final Logger log = LoggerFactory.getLogger(ImageGcManager.class);

  private final ImageService images;
  private final ImageGcPolicy policy;
  private final String sandboxImage;
  private final EventRecorder recorder;
  private final ObjectReference node;
  private final Clock clock;
  private final OwnedScheduler runs;

  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, ImageRecord> records = new HashMap<>();
  private boolean initialized;
  private boolean previousFailed;

  /** The images of the last run that freed nothing of what it wanted; null after any other run. */
  private Set<String> lastFruitless;

  private final AtomicLong deletedImages = new AtomicLong();
  private final AtomicLong freedBytes = new AtomicLong();
  private final AtomicLong failedDeletions = new AtomicLong();
  private final AtomicLong runsOverThreshold = new AtomicLong();

  /** What upstream keeps per image: first detected, last seen in use, size. */
  private static final class ImageRecord {
    final Instant firstDetected;
    Instant lastUsed = Instant.EPOCH;
    long size;

    ImageRecord(Instant firstDetected) {
      this.firstDetected = firstDetected;
    }
  }

  RealImageGcManager(
      Options options,
      ImageService images,
      EventRecorder recorder,
      Clock clock,
      Schedulers schedulers) {
    this.images = images;
    this.policy = options.policy();
    this.sandboxImage = options.sandboxImage();
    this.recorder = recorder;
    this.node = options.node();
    this.clock = clock;
    this.runs =
        new OwnedScheduler(
            schedulers,
            "image-gc",
            "image GC is not running",
            s -> s.atFixedRate(Duration.ZERO, options.period(), this::runOnce));
  }

  /** {@link ImageGcManager#create}: none when the policy disables image GC. */
  static Optional<ImageGcManager> ifEnabled(
      Options options, ImageService images, EventRecorder recorder, Time time) {
    if (!options.policy().enabled()) {
      log.info("ImageGC: imageGCHighThresholdPercent is 100; image garbage collection is off");
      return Optional.empty();
    }
    return Optional.of(
        new RealImageGcManager(options, images, recorder, time.clock(), time.schedulers()));
  }

  @Override
  public void start() {
    runs.start();
  }

  @Override
  public void stop() {
    runs.stop();
  }

  /** Healthy while started; a failing run is reported by events, not by health. */
  @Override
  public Health healthy() {
    return runs.healthy();
  }

  @Override
  public Stats stats() {
    return new Stats(
        deletedImages.get(), freedBytes.get(), failedDeletions.get(), runsOverThreshold.get());
  }

  /** One periodic run: detection, then collection; failures logged and reported as upstream's. */
  void runOnce() {
    lock.lock();
    try {
      try {
        // Upstream's detection loop: every image's last use is recorded even below the threshold.
        detectImages(initialized ? clock.instant() : Instant.EPOCH);
        initialized = true;
        garbageCollect();
        if (previousFailed) {
          log.info("ImageGC: image garbage collection succeeded");
        }
        previousFailed = false;
      } catch (Fruitless e) {
        log.debug("ImageGC: {} (reported before; nothing changed)", e.getMessage());
        previousFailed = true;
      } catch (Exception e) {
        if (previousFailed) {
          log.error(
              "ImageGC: image garbage collection failed multiple times in a row: {}",
              e.getMessage());
          recorder.event(node, EventType.Warning, Reasons.IMAGE_GC_FAILED, e.getMessage());
        } else {
          log.warn("ImageGC: image garbage collection failed once: {}", e.getMessage());
        }
        previousFailed = true;
      }
    } finally {
      lock.unlock();
    }
  }

  /** A run that freed nothing again, with the same images as the last such run: not reported. */
  private static final class Fruitless extends Exception {
    Fruitless(String message) {
      super(message, null, false, false);
    }
  }

  /** Upstream's {@code GarbageCollect}; the caller holds the lock. */
  private void garbageCollect() throws Exception {
    ImageService.FsUsage usage = images.imageFsUsage();
    long capacity = usage.capacityBytes();
    long available = usage.availableBytes();
    if (available > capacity) {
      log.warn("ImageGC: available {} is larger than capacity {}", available, capacity);
      available = capacity;
    }
    if (capacity == 0) {
      String message = "invalid capacity 0 on image filesystem";
      recorder.event(node, EventType.Warning, Reasons.INVALID_DISK_CAPACITY, message);
      throw new IllegalStateException(message);
    }
    int usagePercent = (int) (100 - available * 100 / capacity);
    if (usagePercent < policy.highThresholdPercent()) {
      lastFruitless = null;
      return;
    }
    runsOverThreshold.incrementAndGet();
    long amountToFree = capacity * (100 - policy.lowThresholdPercent()) / 100 - available;
    log.info(
        "ImageGC: disk usage on image filesystem is at {}% which is over the high threshold ({}%)."
            + " Trying to free {} bytes down to the low threshold ({}%).",
        usagePercent, policy.highThresholdPercent(), amountToFree, policy.lowThresholdPercent());
    long freed = freeSpace(amountToFree, clock.instant());
    if (freed >= amountToFree) {
      lastFruitless = null;
      return;
    }
    String message =
        String.format(
            "failed to garbage collect required amount of images. Wanted to free %d bytes, but"
                + " freed %d bytes",
            amountToFree, freed);
    if (freed == 0) {
      Set<String> now = new TreeSet<>(records.keySet());
      boolean same = now.equals(lastFruitless);
      lastFruitless = now;
      if (same) {
        throw new Fruitless(message);
      }
    } else {
      lastFruitless = null;
    }
    recorder.event(node, EventType.Warning, Reasons.FREE_DISK_SPACE_FAILED, message);
    throw new IllegalStateException(message);
  }

  @Override
  public long deleteUnusedImages() throws Exception {
    log.info("ImageGC: attempting to delete unused images");
    lock.lock();
    try {
      return freeSpace(Long.MAX_VALUE, clock.instant());
    } finally {
      lock.unlock();
    }
  }

  /** Upstream's {@code detectImages}: the images in use; the caller holds the lock. */
  private Set<String> detectImages(Instant detectTime) {
    Set<String> inUse = new HashSet<>();
    try {
      images.imageId(sandboxImage).ifPresent(inUse::add);
    } catch (RuntimeException e) {
      log.debug("ImageGC: cannot look up the sandbox image {}: {}", sandboxImage, e.getMessage());
    }
    List<ImageService.Image> listed = images.images();
    inUse.addAll(images.imagesInUse());
    Instant now = clock.instant();
    Set<String> current = new HashSet<>();
    for (ImageService.Image image : listed) {
      current.add(image.id());
      ImageRecord r = records.computeIfAbsent(image.id(), id -> new ImageRecord(detectTime));
      if (inUse.contains(image.id())) {
        r.lastUsed = now;
      }
      r.size = image.sizeBytes();
    }
    records.keySet().retainAll(current);
    return inUse;
  }

  /**
   * Upstream's {@code freeSpace}: deletes unused images old enough, least recently used first,
   * until {@code bytesToFree} are freed; the caller holds the lock. Returns the bytes freed; a
   * deletion that fails is skipped, and reported by the exception once the others are done.
   */
  private long freeSpace(long bytesToFree, Instant freeTime) throws Exception {
    Set<String> inUse = detectImages(freeTime);
    List<Map.Entry<String, ImageRecord>> candidates = new ArrayList<>();
    for (Map.Entry<String, ImageRecord> e : records.entrySet()) {
      if (!inUse.contains(e.getKey())) {
        candidates.add(e);
      }
    }
    candidates.sort(
        Comparator.comparing((Map.Entry<String, ImageRecord> e) -> e.getValue().lastUsed)
            .thenComparing(e -> e.getValue().firstDetected));
    List<String> errors = new ArrayList<>();
    long freed = 0;
    for (Map.Entry<String, ImageRecord> e : candidates) {
      ImageRecord r = e.getValue();
      if (!r.lastUsed.isBefore(freeTime)) {
        continue;
      }
      if (Duration.between(r.firstDetected, freeTime).compareTo(policy.minAge()) < 0) {
        continue;
      }
      log.info("ImageGC: removing image {} to free {} bytes", e.getKey(), r.size);
      try {
        images.removeImage(e.getKey());
      } catch (RuntimeException x) {
        failedDeletions.incrementAndGet();
        errors.add(x.getMessage());
        continue;
      }
      records.remove(e.getKey());
      deletedImages.incrementAndGet();
      freedBytes.addAndGet(r.size);
      freed += r.size;
      if (freed >= bytesToFree) {
        break;
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalStateException(
          String.format(
              "wanted to free %d bytes, but freed %d bytes space with errors in image deletion: %s",
              bytesToFree, freed, errors));
    }
    return freed;
  }
}
