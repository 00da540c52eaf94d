package io.jkubelet.agent.kuberuntime;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventCorrelator;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.PullProgress;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.timeline.Phase;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Durations;
import io.jkubelet.config.ImageSettings;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The image pulls in flight: one engine pull per image and set of credentials, however many pods
 * wait on it; its progress, told to each of them; and the progress deadline, as dockershim's {@code
 * --image-pull-progress-deadline}.
 *
 * <ul>
 *   <li><b>Once.</b> A pod that needs an image whose pull with the same credentials is already
 *       running waits on that pull rather than starting another, and gets its outcome.
 *   <li><b>Progress</b> (unless {@code imagePullProgress: false}). Every {@link #REPORT_PERIOD}
 *       while it runs, each waiting pod's {@code Pulling} event is updated with where the pull
 *       stands ({@link PullTally.Snapshot#describe}): the same object, its count and message
 *       patched by the event correlator ({@link EventCorrelator#PROGRESS_OF}), not a new event.
 *       Nothing is sent while nothing changed.
 *   <li><b>Deadline.</b> A pull whose engine has said nothing for the deadline is cancelled with
 *       upstream's words ({@code Cancel pulling image "x" because of no progress for 1m0s, latest
 *       progress: "..."}), which the pod's {@code Failed} Warning then carries; the pull is retried
 *       under the pod's image backoff. Checked at each report, so within {@link #REPORT_PERIOD}
 *       after it passes, as dockershim checks. A zero deadline never cancels.
 * </ul>
 *
 * <p>Thread-safe: the pulls in flight are a concurrent map; a pull's tally is guarded by the pull
 * itself; the reports run on this subsystem's scheduler ({@code image-pulls}), made by {@link
 * #start} and closed by {@link #stop}. Before {@code start} pulls run without reports or deadline.
 */
public final class ImagePulls implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ImagePulls.class);

  /** How often a running pull is reported and checked against the deadline, as dockershim's. */
  public static final Duration REPORT_PERIOD = Duration.ofSeconds(10);

  /** Follows the pulls for metrics; called on the pulling threads, must not block. */
  public interface Listener {
    /** An engine pull began. */
    default void started() {}

    /** A pull downloaded these many more bytes. */
    default void downloaded(long bytes) {}

    /** An engine pull ended, after {@code took}, well or not. */
    default void finished(Duration took, boolean succeeded) {}

    Listener NONE = new Listener() {};
  }

  /** A pod waiting on a pull, and the object its events are about (the container). */
  public record Waiter(String podUid, @Nullable String container, ObjectReference ref) {
    public Waiter {
      Records.requireNonNull(Waiter.class, podUid, ref);
    }
  }

  /**
   * Where one pull stands, for the kubelet API's {@code /pods}: one flat JSON object (its parts
   * unwrapped, in this order), sizes in bytes, times in RFC 3339.
   *
   * @param containers the pod's containers that wait on it
   * @param progress the last progress, in the words of the event
   */
  public record Status(
      String image,
      List<String> containers,
      @JsonUnwrapped Amounts amounts,
      @JsonUnwrapped Pace pace,
      String progress) {}

  /** How much of a pull is done: its bytes and layers. */
  public record Amounts(
      long bytes, long totalBytes, boolean totalKnown, int layers, int layersDone) {}

  /**
   * How fast a pull goes, and since when.
   *
   * @param secondsLeft the estimate, or null when it cannot tell yet
   */
  public record Pace(
      long bytesPerSecond, Long secondsLeft, String startedAt, String lastProgressAt) {}

  private record Key(String image, List<RegistryAuth> auths) {}

  private final Runtime runtime;
  private final EventRecorder recorder;
  private final Clock clock;
  private final Duration deadline;
  private final boolean reportProgress;
  private final Listener listener;
  private final PodTimelines timelines;
  private final Map<Key, Pull> inFlight = new ConcurrentHashMap<>();
  private final OwnedScheduler reports;

  /**
   * @param settings how long a pull may go without progress before it is cancelled (zero: no
   *     limit), and whether the waiting pods' {@code Pulling} events are updated with its progress
   * @param timelines where each waiting pod's pull (or wait on another pod's) is recorded
   */
  public ImagePulls(
      Runtime runtime,
      EventRecorder recorder,
      Time time,
      ImageSettings settings,
      Listener listener,
      PodTimelines timelines) {
    this.runtime = Objects.requireNonNull(runtime, "runtime");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.clock = Objects.requireNonNull(time, "time").clock();
    this.deadline = settings.imagePullProgressDeadline();
    this.reportProgress = settings.imagePullProgress();
    this.listener = Objects.requireNonNull(listener, "listener");
    this.timelines = Objects.requireNonNull(timelines, "timelines");
    this.reports =
        new OwnedScheduler(time.schedulers(), "image-pulls", "image pulls not started", s -> {});
  }

  @Override
  public void start() {
    reports.start();
  }

  @Override
  public void stop() {
    reports.stop();
  }

  @Override
  public Health healthy() {
    return reports.healthy();
  }

  /**
   * Pulls the image presenting each credential in turn (one of {@link RegistryAuth#NONE}: an
   * anonymous pull) until one succeeds, or waits on the same pull already running. Blocks until it
   * ends; returns null when the image is there, else why not ({@link ImagePuller#aggregate} of each
   * try's error, as the CRI words them).
   */
  String pull(String image, List<RegistryAuth> auths, Duration timeout, Waiter waiter) {
    PodTimelines.Span span = timelines.begin(waiter.podUid(), Phase.IMAGE_PULL, image);
    String failure = pullOrWait(image, auths, timeout, waiter, span);
    if (failure == null) {
      span.end();
    } else {
      span.fail(failure);
    }
    return failure;
  }

  private String pullOrWait(
      String image,
      List<RegistryAuth> auths,
      Duration timeout,
      Waiter waiter,
      PodTimelines.Span span) {
    Key key = new Key(image, List.copyOf(auths));
    Pull mine = new Pull(image, clock.instant());
    mine.waiters.add(waiter);
    while (true) {
      Pull running = inFlight.putIfAbsent(key, mine);
      if (running == null) {
        return run(key, mine, timeout);
      }
      if (running.join(waiter)) {
        log.info("ImagePulls: pod {} waits on the pull of {} in flight", waiter.podUid(), image);
        span.note("waited on the pull another pod started");
        return running.await();
      }
      inFlight.remove(key, running); // it just ended: pull anew
    }
  }

  private String run(Key key, Pull pull, Duration timeout) {
    listener.started();
    Scheduler s = reports.current();
    Scheduler.Task ticker =
        s == null ? () -> {} : s.atFixedRate(REPORT_PERIOD, REPORT_PERIOD, () -> tick(pull));
    List<String> errors = new ArrayList<>();
    boolean ok = false;
    try {
      for (RegistryAuth auth : key.auths()) {
        if (pull.cancelledWhy != null) {
          break; // the cancelled try's error says why
        }
        try {
          runtime.pullImage(key.image(), auth, timeout, pull);
          ok = true;
          break;
        } catch (RuntimeError e) {
          errors.add(ImagePuller.RPC_UNKNOWN + e.getMessage());
        }
      }
    } finally {
      ticker.cancel();
      pull.end(ok ? null : ImagePuller.aggregate(errors));
      inFlight.remove(key, pull);
      listener.finished(Duration.between(pull.started, clock.instant()), ok);
    }
    return pull.await();
  }

  /** One report of a running pull, or its cancellation past the deadline. */
  private void tick(Pull pull) {
    Instant now = clock.instant();
    PullTally.Snapshot s = pull.snapshot();
    if (!deadline.isZero()
        && pull.begun()
        && Duration.between(s.lastProgress(), now).compareTo(deadline) >= 0) {
      String why =
          String.format(
              "Cancel pulling image \"%s\" because of no progress for %s, latest progress: \"%s\"",
              pull.image, Durations.format(deadline), s.latest());
      log.warn("ImagePulls: {}", why);
      pull.cancel(why);
      return;
    }
    if (!reportProgress || s.lastProgress().equals(pull.lastReported)) {
      return; // progress is not told (imagePullProgress: false), or nothing new since the last
    }
    pull.lastReported = s.lastProgress();
    String text = s.describe(now);
    log.info("ImagePulls: pulling {}: {}", pull.image, text);
    String pulling = "Pulling image \"" + pull.image + "\"";
    for (Waiter w : pull.waiters) {
      recorder.annotatedEventf(
          w.ref(),
          Map.of(EventCorrelator.PROGRESS_OF, pulling),
          EventType.Normal,
          Reasons.PULLING,
          "%s: %s",
          pulling,
          text);
    }
  }

  /** The pulls the pod with this UID waits on, as {@code /pods} shows them; empty for none. */
  public List<Status> forPod(String podUid) {
    if (inFlight.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    List<Status> out = new ArrayList<>();
    for (Pull p : inFlight.values()) {
      List<String> containers = new ArrayList<>();
      for (Waiter w : p.waiters) {
        if (w.podUid().equals(podUid)) {
          containers.add(w.container());
        }
      }
      if (containers.isEmpty()) {
        continue;
      }
      PullTally.Snapshot s = p.snapshot();
      Duration left = s.estimate(now);
      out.add(
          new Status(
              p.image,
              containers,
              new Amounts(s.bytes(), s.total(), s.totalKnown(), s.layers(), s.layersDone()),
              new Pace(
                  s.bytesPerSecond(now),
                  left == null ? null : left.toSeconds(),
                  s.started().toString(),
                  s.lastProgress().toString()),
              s.describe(now)));
    }
    return out;
  }

  /** How many engine pulls are in flight. */
  public int inFlight() {
    return inFlight.size();
  }

  /** One engine pull and the pods that wait on it; its own observer. */
  private final class Pull implements PullObserver {
    final String image;
    final Instant started;
    final List<Waiter> waiters = new CopyOnWriteArrayList<>();
    final CompletableFuture<String> result = new CompletableFuture<>();
    private final PullTally tally; // guarded by this
    private Consumer<String> cancel; // guarded by this
    volatile String cancelledWhy;
    volatile Instant lastReported; // the reports' thread only

    Pull(String image, Instant started) {
      this.image = image;
      this.started = started;
      this.tally = new PullTally(started);
    }

    /** Adds a waiter unless the pull has ended. */
    boolean join(Waiter w) {
      synchronized (this) {
        if (result.isDone()) {
          return false;
        }
        waiters.add(w);
        return true;
      }
    }

    void end(String failure) {
      synchronized (this) {
        result.complete(failure);
      }
    }

    String await() {
      try {
        return result.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted while waiting for the pull of " + image;
      } catch (ExecutionException e) {
        return String.valueOf(e.getCause());
      }
    }

    /** Whether the engine's pull began (a pull may wait for its turn first). */
    synchronized boolean begun() {
      return cancel != null;
    }

    synchronized PullTally.Snapshot snapshot() {
      return tally.snapshot();
    }

    void cancel(String why) {
      Consumer<String> c;
      synchronized (this) {
        cancelledWhy = why;
        c = cancel;
      }
      if (c != null) {
        c.accept(why);
      }
    }

    @Override
    public void started(Consumer<String> cancel) {
      String why;
      synchronized (this) {
        this.cancel = cancel;
        tally.begun(clock.instant());
        why = cancelledWhy;
      }
      if (why != null) {
        cancel.accept(why);
      }
    }

    @Override
    public void progress(PullProgress progress) {
      long added;
      synchronized (this) {
        added = tally.add(progress, clock.instant());
      }
      if (added > 0) {
        listener.downloaded(added);
      }
    }
  }
}
