package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.config.Durations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The static pod manifest directory: one Pod per {@code .yaml}, {@code .yml} or {@code .json} file;
 * hidden files and other extensions are ignored.
 *
 * <p>It rescans every {@code period} and also watches the directory, so a change is picked up
 * within about a second. Every scan sends the full set of pods to the merge, which works out what
 * changed.
 *
 * <p>Beyond upstream: a file that becomes malformed or invalid keeps the pod of its last valid
 * version, so a typo never kills a running pod; the error is logged (naming the file) and, when a
 * pod can be named, recorded as a {@code FailedValidation} event.
 *
 * <p>Scans, and the watch's polls ({@link DirectoryWatch}, every {@link #WATCH_POLL}), run on one
 * {@link Scheduler} from the injected {@code Schedulers}, one at a time, so {@code files} needs no
 * lock (the watch's only orders a stop against a poll). A poll that finds a change only asks for a
 * scan.
 */
public final class FileSource implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(FileSource.class);
  private static final Duration DEBOUNCE = Duration.ofMillis(100);

  /**
   * How often the watch is read: a manifest written starts its pod at most a tenth of a second
   * after upstream's inotify watch would, and a read that finds nothing takes microseconds.
   */
  static final Duration WATCH_POLL = Duration.ofMillis(100);

  private final Path dir;
  private final SourceOptions options;
  private final ManifestParser parser;
  private final EventRecorder recorder;

  /** Per file: the content last read, and the pod of its last valid version (or null). */
  private final Map<Path, FileState> files = new HashMap<>();

  private record FileState(String content, Pod lastGood, String error) {}

  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean scanPending = new AtomicBoolean();
  private final AtomicReference<Instant> lastScan = new AtomicReference<>();
  private Scheduler scheduler;
  private DirectoryWatch watch;

  FileSource(Path dir, SourceOptions options, EventRecorder recorder) {
    this.dir = dir;
    this.options = options;
    this.parser = new ManifestParser(options.nodeName());
    this.recorder = recorder;
  }

  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    scheduler = options.everyPeriod("file-source", this::scanSafely);
    scheduler.withFixedDelay(WATCH_POLL, WATCH_POLL, this::pollWatch);
    log.info("file source: watching {} (rescan every {})", dir, Durations.format(options.period()));
  }

  @Override
  public void stop() {
    if (!started.compareAndSet(true, false)) {
      return;
    }
    scheduler.close();
    closeWatch();
  }

  @Override
  public Health healthy() {
    Instant last = lastScan.get();
    if (!started.get() || last == null) {
      return Health.failing("file source has not scanned " + dir + " yet");
    }
    return Health.OK;
  }

  /** Scans once and sends the result. Tests call this directly. */
  public void scan() {
    lastScan.set(options.clock().instant());
    if (!Files.isDirectory(dir)) {
      log.debug("file source: {} does not exist or is not a directory", dir);
      files.clear();
      options.sink().accept(List.of());
      return;
    }
    List<Path> candidates = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(FileSource::isManifest).sorted().forEach(candidates::add);
    } catch (IOException e) {
      // A transient listing failure must not remove every pod: keep what we had.
      log.error("file source: cannot list {}: {}; keeping the current pods", dir, e.toString());
      options.sink().accept(currentPods());
      return;
    }
    files.keySet().retainAll(candidates);
    for (Path file : candidates) {
      readFile(file);
    }
    options.sink().accept(currentPods());
  }

  private List<Pod> currentPods() {
    List<Pod> pods = new ArrayList<>();
    files.keySet().stream()
        .sorted()
        .forEach(
            f -> {
              Pod p = files.get(f).lastGood();
              if (p != null) {
                pods.add(p);
              }
            });
    return pods;
  }

  private void readFile(Path file) {
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      files.remove(file);
      return;
    } catch (IOException e) {
      log.error("file source: cannot read {}: {}; keeping its last valid pod", file, e.toString());
      return;
    }
    FileState prev = files.get(file);
    if (prev != null && prev.content().equals(content)) {
      return;
    }
    Pod lastGood = prev == null ? null : prev.lastGood();
    switch (parser.parse(content, file.toString(), Source.FILE)) {
      case ManifestParser.Parsed p -> {
        files.put(file, new FileState(content, p.pod(), null));
        if (prev != null && prev.error() != null) {
          log.info("file source: {} is valid again", file);
        }
      }
      case ManifestParser.Invalid inv -> {
        files.put(file, new FileState(content, lastGood, inv.message()));
        if (lastGood != null) {
          log.error(
              "file source: ignoring {}: {}; pod {}/{} keeps running from its last valid version",
              file,
              inv.message(),
              lastGood.getMetadata().getNamespace(),
              lastGood.getMetadata().getName());
        } else {
          log.error("file source: ignoring {}: {}", file, inv.message());
        }
        Pod named = lastGood != null ? lastGood : inv.pod();
        if (named != null) {
          recorder.eventf(
              Refs.pod(named),
              EventType.Warning,
              Reasons.FAILED_VALIDATION,
              "Error validating pod %s from file %s, ignoring: %s",
              named.getMetadata().getName(),
              file,
              inv.message());
        }
      }
    }
  }

  static boolean isManifest(Path p) {
    String name = p.getFileName().toString();
    if (name.startsWith(".") || !Files.isRegularFile(p)) {
      return false;
    }
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".yaml") || lower.endsWith(".yml") || lower.endsWith(".json");
  }

  private void scanSafely() {
    scanPending.set(false);
    try {
      ensureWatch();
      scan();
    } catch (RuntimeException e) {
      log.error("file source: scan of {} failed", dir, e);
    }
  }

  private void requestScan() {
    if (scanPending.compareAndSet(false, true)) {
      scheduler.after(DEBOUNCE, this::scanSafely);
    }
  }

  /** Sets the directory watch when the directory exists and no watch is set. */
  private synchronized void ensureWatch() {
    if (watch != null || !started.get() || !Files.isDirectory(dir)) {
      return;
    }
    try {
      watch = DirectoryWatch.open(dir);
    } catch (IOException e) {
      log.warn(
          "file source: cannot watch {} ({}); relying on the {} rescan",
          dir,
          e.getMessage(),
          Durations.format(options.period()));
    }
  }

  private synchronized void closeWatch() {
    if (watch != null) {
      watch.close();
      watch = null;
    }
  }

  private synchronized void pollWatch() {
    if (watch == null) {
      return;
    }
    try {
      switch (watch.poll()) {
        case NOTHING -> {}
        case CHANGE -> requestScan();
        case GONE -> {
          // The directory went away: drop the watch; the scan sets a new one if it is back.
          closeWatch();
          requestScan();
        }
      }
    } catch (IOException e) {
      log.warn("file source: watch of {} failed: {}", dir, e.getMessage());
      closeWatch();
    }
  }
}
