package io.jkubelet.agent.terminating;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventCorrelator;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.kuberuntime.PreStopsRunning;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.runtime.CallsInFlight;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.GoQuote;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StuckTerminations}: a pod being deleted is tracked from the first check that sees its
 * deletion until it leaves the desired pods; its first report is due at that moment plus its grace
 * period plus {@code stuckAfter}, each next one after an interval that doubles.
 *
 * <p>Thread-safe: the checks run on the scheduler's one thread ({@code termination-watch}), or on a
 * test's; {@link #report} reads the tracked pods, a concurrent map, from the API's threads. A
 * {@link Tracked}'s fields are written by the checking thread only and read as volatile.
 */
final class TerminationWatch implements StuckTerminations {
  private static final Logger log = LoggerFactory.getLogger(StuckTerminations.class);

  private final Sources sources;
  private final Duration stuckAfter;
  private final Clock clock;
  private final EventRecorder recorder;
  private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
  private final OwnedScheduler checks;

  /** A pod being deleted, as the checks follow it. */
  private static final class Tracked {
    final Instant seen;
    volatile Pod pod;
    volatile Duration grace;
    volatile Instant due;
    volatile Duration interval;
    volatile int reports;
    volatile String firstMessage; // the event the repeats patch

    Tracked(Pod pod, Instant seen, Duration grace, Duration stuckAfter) {
      this.pod = pod;
      this.seen = seen;
      this.grace = grace;
      this.due = seen.plus(grace).plus(stuckAfter);
      this.interval = stuckAfter;
    }
  }

  TerminationWatch(Sources sources, Options options, Time time, EventRecorder recorder) {
    this.sources = sources;
    this.stuckAfter = options.stuckAfter();
    this.clock = time.clock();
    this.recorder = recorder;
    this.checks =
        new OwnedScheduler(
            time.schedulers(),
            "termination-watch",
            "termination watch not started",
            s -> s.withFixedDelay(CHECK_PERIOD, CHECK_PERIOD, this::runOnce));
  }

  @Override
  public void start() {
    checks.start();
  }

  @Override
  public void stop() {
    checks.stop();
  }

  @Override
  public Health healthy() {
    return checks.healthy();
  }

  @Override
  public void runOnce() {
    Instant now = clock.instant();
    Set<String> deleting = new HashSet<>();
    for (Pod pod : sources.pods().get()) {
      if (pod.getMetadata().getDeletionTimestamp() == null || Annotations.isMirror(pod)) {
        continue;
      }
      String uid = pod.getMetadata().getUid();
      deleting.add(uid);
      Duration grace = grace(pod);
      Tracked t = tracked.computeIfAbsent(uid, k -> new Tracked(pod, now, grace, stuckAfter));
      t.pod = pod;
      if (grace.compareTo(t.grace) < 0 && t.reports == 0) {
        // A second deletion with a shorter grace period: the pod is due earlier.
        t.grace = grace;
        t.due = t.seen.plus(grace).plus(stuckAfter);
      }
      if (!now.isBefore(t.due)) {
        report(t, now);
      }
    }
    tracked.keySet().retainAll(deleting);
  }

  @Override
  public Optional<Report> report(String podUid) {
    Tracked t = tracked.get(podUid);
    if (t == null || t.reports == 0) {
      return Optional.empty();
    }
    return Optional.of(reportOf(t, clock.instant()));
  }

  private void report(Tracked t, Instant now) {
    Report r = reportOf(t, now);
    t.reports++;
    t.due = now.plus(t.interval);
    Duration next = t.interval.multipliedBy(2);
    t.interval = next.compareTo(MAX_REPEAT) > 0 ? MAX_REPEAT : next;
    log.warn("TerminationStuck {}: {}", PodConfig.fullName(t.pod), r.message());
    if (t.firstMessage == null) {
      t.firstMessage = r.message();
      recorder.event(Refs.pod(t.pod), EventType.Warning, Reasons.TERMINATION_STUCK, r.message());
    } else {
      recorder.annotatedEventf(
          Refs.pod(t.pod),
          Map.of(EventCorrelator.PROGRESS_OF, t.firstMessage),
          EventType.Warning,
          Reasons.TERMINATION_STUCK,
          "%s",
          r.message());
    }
  }

  private Report reportOf(Tracked t, Instant now) {
    List<Holder> holders = holders(t.pod, now);
    Duration terminating = Duration.between(t.seen, now);
    String message =
        String.format(
            "Pod still not gone %s after its deletion (grace period %s), held by: %s",
            Durations.format(seconds(terminating)),
            Durations.format(t.grace),
            holders.isEmpty()
                ? "nothing on this node any more; its final deletion waits on the API server"
                : holders.stream().map(Holder::describe).collect(Collectors.joining("; ")));
    return new Report(
        t.seen.toString(),
        t.grace.toSeconds(),
        terminating.toSeconds(),
        t.reports,
        holders,
        message);
  }

  /** What holds the pod now, from what the node knows in memory. */
  List<Holder> holders(Pod pod, Instant now) {
    String uid = pod.getMetadata().getUid();
    List<Holder> out = new ArrayList<>();
    PodStatus status = sources.runtimeStatus().apply(uid).orElse(null);
    Map<String, String> about = new HashMap<>();
    about.put(uid, "pod");
    if (status != null) {
      Set<String> named = new HashSet<>();
      for (ContainerStatus c : status.containers()) { // newest first
        about.putIfAbsent(c.id(), "container " + GoQuote.quote(c.name()));
        boolean holds = c.running() || c.state() == ContainerState.UNKNOWN;
        if (holds && named.add(c.name())) {
          out.add(
              new Holder.ContainerNotExited(
                  c.name(), c.id(), c.pid(), c.state().name().toLowerCase(Locale.ROOT)));
        }
      }
      for (SandboxStatus s : status.sandboxes()) {
        about.putIfAbsent(s.id(), "sandbox " + shortId(s.id()));
      }
    }
    for (PreStopsRunning.Running h : sources.preStops().of(uid)) {
      out.add(new Holder.PreStopRunning(h.container(), seconds(h.since(), now)));
    }
    sources
        .volumes()
        .apply(uid)
        .ifPresent(
            f ->
                out.add(
                    new Holder.VolumeNotTornDown(f.volume(), f.error(), seconds(f.since(), now))));
    for (CallsInFlight.Call c : sources.calls().about(about.keySet())) {
      if (c.age(now).compareTo(CALL_MIN_AGE) >= 0) {
        out.add(
            new Holder.RuntimeCallPending(
                c.method(), about.get(c.target()), seconds(c.since(), now)));
      }
    }
    return out;
  }

  /** The deletion's grace period, else the pod's, else upstream's default of 30 s. */
  static Duration grace(Pod pod) {
    Long s = pod.getMetadata().getDeletionGracePeriodSeconds();
    if (s == null && pod.getSpec() != null) {
      s = pod.getSpec().getTerminationGracePeriodSeconds();
    }
    return Duration.ofSeconds(s == null ? 30 : Math.max(0, s));
  }

  private static long seconds(Instant from, Instant to) {
    return Math.max(0, Duration.between(from, to).toSeconds());
  }

  private static Duration seconds(Duration d) {
    return Duration.ofSeconds(d.toSeconds());
  }

  private static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }
}
