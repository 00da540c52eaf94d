package io.jkubelet.agent.timeline;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PodTimelines} in memory, each pod's also in {@code <podsDir>/<uid>/timeline.json} (written
 * whole, through a temporary file and a rename, under the pod's lock).
 *
 * <p>Thread-safe: the map is concurrent, and each {@link PodTimeline} has its own lock.
 */
final class TimelineRecorder implements PodTimelines {
  private static final Logger log = LoggerFactory.getLogger(TimelineRecorder.class);

  /** The file's name under the pod's directory. */
  static final String FILE = "timeline.json";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Clock clock;
  private final Path podsDir;
  private final Listener listener;
  private final Map<String, PodTimeline> byUid = new ConcurrentHashMap<>();

  TimelineRecorder(Clock clock, Path podsDir, Listener listener) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.podsDir = podsDir;
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public Span admission(Pod pod) {
    String uid = pod.getMetadata().getUid();
    PodTimeline t = byUid.get(uid);
    if (t == null) {
      t = open(pod);
      if (t == null) {
        return Span.NONE;
      }
      PodTimeline raced = byUid.putIfAbsent(uid, t);
      if (raced != null) {
        t = raced;
      } else if (t.restarted()) {
        synchronized (t) {
          write(t);
        }
      }
    }
    // After a restart the pod is admitted again, but that is no part of its start.
    return t.restarted() ? Span.NONE : span(t, Phase.ADMISSION, null);
  }

  /**
   * The pod's timeline: read back from its file after a restart (with the restart's marker), or
   * new. A pod that a previous jkubelet started, with no file, gets only the marker; one that was
   * already Ready gets none.
   */
  private PodTimeline open(Pod pod) {
    var meta = pod.getMetadata();
    Optional<Timeline> kept = read(meta.getUid());
    if (kept.isPresent()) {
      PodTimeline t = PodTimeline.of(kept.get());
      if (!t.closed()) {
        log.info(
            "PodTimelines: pod {}/{} was starting when jkubelet restarted; its timeline goes on",
            meta.getNamespace(),
            meta.getName());
        t.restartedAt(clock.instant(), "phases still open were begun before the restart");
      }
      return t;
    }
    PodStatus status = pod.getStatus();
    if (status == null || status.getStartTime() == null) {
      return new PodTimeline(meta.getNamespace(), meta.getName(), meta.getUid());
    }
    if (isReady(status)) {
      return null; // started and Ready before this jkubelet ran: no start to record
    }
    PodTimeline t = new PodTimeline(meta.getNamespace(), meta.getName(), meta.getUid());
    t.restartedAt(
        clock.instant(), "the pod was started before; its earlier phases were not recorded");
    return t;
  }

  private static boolean isReady(PodStatus status) {
    if (status.getConditions() == null) {
      return false;
    }
    for (PodCondition c : status.getConditions()) {
      if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Span begin(String podUid, Phase phase, String name) {
    PodTimeline t = byUid.get(podUid);
    return t == null ? Span.NONE : span(t, phase, name);
  }

  private Span span(PodTimeline t, Phase phase, String name) {
    synchronized (t) {
      PodTimeline.Step s = t.begin(phase, name, clock.instant());
      if (s == null) {
        return Span.NONE;
      }
      if (phase != Phase.ADMISSION) {
        write(t); // the admission alone is not worth a file: the next phase writes it too
      }
      return new StepSpan(t, s);
    }
  }

  @Override
  public void ended(String podUid, Phase phase, String name, Instant at, String error) {
    PodTimeline t = byUid.get(podUid);
    if (t == null) {
      return;
    }
    synchronized (t) {
      t.open(phase, name).ifPresent(s -> finish(t, s, at == null ? clock.instant() : at, error));
    }
  }

  private void finish(PodTimeline t, PodTimeline.Step s, Instant at, String error) {
    synchronized (t) {
      if (t.closed()) {
        return;
      }
      Optional<Duration> took = t.end(s, at, error);
      if (!(s.phase == Phase.ADMISSION && error != null)) {
        write(t);
      }
      took.ifPresent(d -> listener.phaseEnded(s.phase, d));
    }
  }

  @Override
  public Optional<Timeline> ready(String podUid) {
    PodTimeline t = byUid.get(podUid);
    if (t == null) {
      return Optional.empty();
    }
    synchronized (t) {
      if (t.closed()) {
        return Optional.empty();
      }
      boolean saw = t.sawStart();
      Optional<Duration> readiness = t.ready(clock.instant());
      write(t);
      readiness.ifPresent(d -> listener.phaseEnded(Phase.READINESS, d));
      return saw ? Optional.of(t.snapshot()) : Optional.empty();
    }
  }

  @Override
  public Optional<Timeline> find(String namespace, String name) {
    return byUid.values().stream()
        .filter(t -> t.namespace.equals(namespace) && t.name.equals(name))
        .max(Comparator.comparing(t -> Optional.ofNullable(t.began()).orElse(Instant.MIN)))
        .map(PodTimeline::snapshot);
  }

  @Override
  public boolean enabled() {
    return true;
  }

  @Override
  public void forget(String podUid) {
    byUid.remove(podUid);
  }

  /** Writes the pod's file; a failure is logged and the timeline goes on in memory. */
  private void write(PodTimeline t) {
    if (podsDir == null || byUid.get(t.uid) != t) {
      return;
    }
    Path dir = podsDir.resolve(t.uid);
    Path tmp = dir.resolve(FILE + ".tmp");
    try {
      Files.createDirectories(dir);
      Files.write(tmp, JSON.writeValueAsBytes(t.snapshot()));
      try {
        Files.move(
            tmp,
            dir.resolve(FILE),
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      log.warn("PodTimelines: cannot write the timeline of pod {}: {}", t.uid, e.toString());
    }
  }

  private Optional<Timeline> read(String uid) {
    if (podsDir == null) {
      return Optional.empty();
    }
    Path file = podsDir.resolve(uid).resolve(FILE);
    try {
      return Optional.of(JSON.readValue(Files.readAllBytes(file), Timeline.class));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      log.warn("PodTimelines: cannot read {}, starting a new timeline: {}", file, e.toString());
      return Optional.empty();
    }
  }

  /** A step in progress. */
  private final class StepSpan implements Span {
    private final PodTimeline timeline;
    private final PodTimeline.Step step;

    StepSpan(PodTimeline timeline, PodTimeline.Step step) {
      this.timeline = timeline;
      this.step = step;
    }

    @Override
    public void end() {
      finish(timeline, step, clock.instant(), null);
    }

    @Override
    public void fail(String why) {
      finish(timeline, step, clock.instant(), why == null ? "failed" : why);
    }

    @Override
    public void note(String note) {
      timeline.note(step, note);
    }
  }
}
