package io.jkubelet.agent.kuberuntime;

import io.jkubelet.agent.runtime.PullProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The progress of one image pull, summed over its layers from the engine's progress stream: bytes
 * downloaded and in all, layers done, and the latest message as upstream's dockershim logs it
 * ({@code <id>: <status> <current>/<total>}).
 *
 * <p>The engine names a layer's size only once it starts downloading it (3 at a time by default),
 * so while layers wait the total is a lower bound: {@link Snapshot#totalKnown()} says whether it
 * is. A layer that already exists counts as done and adds no bytes.
 *
 * <p>Not thread-safe: {@link ImagePulls} guards it with the pull's lock.
 */
final class PullTally {
  /** A layer's bytes: downloaded so far and in all (0: unknown), and whether it is done. */
  private static final class Layer {
    long current;
    long total;
    boolean downloaded;
    boolean done;
  }

  /** The latest progress before any, in dockershim's words. */
  static final String NO_PROGRESS = "No progress";

  private final Map<String, Layer> layers = new LinkedHashMap<>();
  private final Instant start;
  private Instant lastProgress;
  private String latest = NO_PROGRESS;
  private long bytes;

  PullTally(Instant start) {
    this.start = start;
    this.lastProgress = start;
  }

  /**
   * The engine's pull began at {@code now}: the deadline counts from there, not from the wait
   * before it (behind {@code serializeImagePulls}, say), as dockershim's starts with its pull.
   */
  void begun(Instant now) {
    lastProgress = now;
  }

  /**
   * Adds a message of the stream at {@code now}; returns the bytes it downloaded beyond what was
   * known (0 for most messages). Every message counts as progress, as upstream's deadline counts
   * it.
   */
  long add(PullProgress p, Instant now) {
    lastProgress = now;
    latest = describe(p);
    String status = p.status();
    if (p.id().isEmpty() || !isLayerStatus(status)) {
      return 0;
    }
    Layer layer = layers.computeIfAbsent(p.id(), id -> new Layer());
    long before = layer.current;
    switch (status) {
      case "Downloading" -> {
        layer.current = Math.max(layer.current, p.current());
        if (p.total() > 0) {
          layer.total = p.total();
        }
      }
      case "Verifying Checksum", "Download complete" -> {
        layer.downloaded = true;
        layer.current = Math.max(layer.current, layer.total);
      }
      case "Extracting" -> {
        layer.downloaded = true;
        if (p.total() > 0) {
          layer.total = Math.max(layer.total, p.total());
          layer.current = Math.max(layer.current, layer.total);
        }
      }
      case "Pull complete", "Already exists" -> {
        layer.downloaded = true;
        layer.done = true;
        layer.current = Math.max(layer.current, layer.total);
      }
      default -> {}
    }
    long added = layer.current - before;
    bytes += added;
    return added;
  }

  private static boolean isLayerStatus(String status) {
    return switch (status) {
      case "Pulling fs layer",
          "Waiting",
          "Downloading",
          "Verifying Checksum",
          "Download complete",
          "Extracting",
          "Pull complete",
          "Already exists" ->
          true;
      default -> false;
    };
  }

  /** The message as dockershim's progress reporter shows it. */
  private static String describe(PullProgress p) {
    String prefix = p.id().isEmpty() ? "" : p.id() + ": ";
    if (p.total() > 0) {
      return prefix + p.status() + " " + humanSize(p.current()) + "/" + humanSize(p.total());
    }
    return prefix + p.status();
  }

  /**
   * Where the pull stands.
   *
   * @param bytes downloaded so far
   * @param total the bytes of the layers whose size is known
   * @param totalKnown whether every layer's size is known (else {@code total} is a lower bound)
   * @param layers the layers named so far
   * @param layersDone those pulled or already present
   * @param started when the pull began
   * @param lastProgress when the engine last said anything
   * @param latest its last message, as dockershim logs it
   */
  record Snapshot(
      long bytes,
      long total,
      boolean totalKnown,
      int layers,
      int layersDone,
      Instant started,
      Instant lastProgress,
      String latest) {

    /** Bytes per second since the pull began, or 0 before a second has passed. */
    long bytesPerSecond(Instant now) {
      long millis = Duration.between(started, now).toMillis();
      return millis < 1000 ? 0 : bytes * 1000 / millis;
    }

    /** How long the known bytes left take at the rate so far; null when it cannot tell. */
    Duration estimate(Instant now) {
      long rate = bytesPerSecond(now);
      if (rate <= 0 || total <= 0) {
        return null;
      }
      return Duration.ofSeconds(Math.max(0, total - bytes) / rate);
    }

    /**
     * {@code 45.2MB of 120MB (2 of 5 layers done), 9.1MB/s, about 8s left}: what the pod's {@code
     * Pulling} event says while the pull runs; {@code of at least} while some layer's size is not
     * known yet.
     */
    String describe(Instant now) {
      if (layers == 0) {
        return latest.equals(NO_PROGRESS) ? "no progress yet" : "no layer yet (" + latest + ")";
      }
      StringBuilder b = new StringBuilder(96);
      b.append(humanSize(bytes)).append(totalKnown ? " of " : " of at least ");
      b.append(humanSize(total));
      b.append(" (").append(layersDone).append(" of ").append(layers).append(" layers done)");
      long rate = bytesPerSecond(now);
      if (rate > 0) {
        b.append(", ").append(humanSize(rate)).append("/s");
      }
      Duration left = estimate(now);
      if (left != null && bytes < total) {
        b.append(", about ").append(io.jkubelet.config.Durations.format(left)).append(" left");
      }
      return b.toString();
    }
  }

  Snapshot snapshot() {
    long total = 0;
    boolean known = true;
    int done = 0;
    for (Layer l : layers.values()) {
      total += l.total;
      if (l.total == 0 && !l.done) {
        known = false;
      }
      if (l.done) {
        done++;
      }
    }
    return new Snapshot(
        bytes, Math.max(total, bytes), known, layers.size(), done, start, lastProgress, latest);
  }

  /**
   * A size as Docker's {@code units.HumanSize} writes it: decimal units, 4 significant digits
   * ({@code 12.35MB}, {@code 512B}).
   */
  static String humanSize(long bytes) {
    String[] units = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double size = bytes;
    int i = 0;
    while (size >= 1000 && i < units.length - 1) {
      size /= 1000;
      i++;
    }
    String s = String.format(Locale.ROOT, "%.4g", size);
    if (s.contains(".") && !s.contains("e")) {
      s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return s + units[i];
  }
}
