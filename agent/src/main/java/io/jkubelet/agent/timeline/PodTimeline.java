package io.jkubelet.agent.timeline;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One pod's timeline as it is recorded: its phases, whether it is closed, when it was Ready.
 *
 * <p>Thread-safe: every method holds the instance's lock, which guards all its fields; the recorder
 * writes the file under it too, so files are written in the order of the changes.
 */
final class PodTimeline {
  final String namespace;
  final String name;
  final String uid;
  private final List<Step> steps = new ArrayList<>();
  private Instant readyAt;
  private boolean closed;
  private boolean restarted;

  /** One phase, mutable under the timeline's lock. */
  static final class Step {
    final Phase phase;
    final String name;
    final Instant began;
    Instant ended;
    int attempts = 1;
    String error;
    String note;

    Step(Phase phase, String name, Instant began) {
      this.phase = phase;
      this.name = name;
      this.began = began;
    }

    boolean is(Phase p, String n) {
      return phase == p && Objects.equals(name, n);
    }
  }

  PodTimeline(String namespace, String name, String uid) {
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
  }

  /**
   * Begins a phase: a new step, or the failed (or, after a restart, unfinished) one again; null
   * when the timeline is closed or the phase already succeeded.
   */
  synchronized Step begin(Phase phase, String stepName, Instant now) {
    if (closed) {
      return null;
    }
    for (Step s : steps) {
      if (s.is(phase, stepName)) {
        if (s.ended != null && s.error == null) {
          return null;
        }
        if (s.ended != null) {
          s.attempts++;
        }
        s.ended = null;
        s.error = null;
        return s;
      }
    }
    Step s = new Step(phase, stepName, now);
    steps.add(s);
    return s;
  }

  /** Ends a step; how long it took when it ended well now, else empty. */
  synchronized Optional<Duration> end(Step s, Instant at, String error) {
    if (s.ended != null) {
      return Optional.empty();
    }
    s.ended = at.isBefore(s.began) ? s.began : at;
    s.error = error;
    return error == null ? Optional.of(Duration.between(s.began, s.ended)) : Optional.empty();
  }

  synchronized void note(Step s, String note) {
    s.note = s.note == null || s.note.equals(note) ? note : s.note + "; " + note;
  }

  /** The open step of this phase and name, if any. */
  synchronized Optional<Step> open(Phase phase, String stepName) {
    return steps.stream().filter(s -> s.is(phase, stepName) && s.ended == null).findFirst();
  }

  /** jkubelet restarted: a marker, unless the timeline was closed before. */
  synchronized void restartedAt(Instant now, String note) {
    if (closed) {
      return;
    }
    restarted = true;
    Step marker = new Step(Phase.KUBELET_RESTARTED, null, now);
    marker.note = note;
    steps.add(marker);
  }

  synchronized boolean restarted() {
    return restarted;
  }

  synchronized boolean closed() {
    return closed;
  }

  /**
   * Closes the timeline at the pod's first Ready, with the readiness phase from the last container
   * start when there was one.
   *
   * @return the readiness phase's duration, when there is one; null when it was closed already
   */
  synchronized Optional<Duration> ready(Instant now) {
    if (closed) {
      return null;
    }
    closed = true;
    readyAt = now;
    Instant lastStart = null;
    for (Step s : steps) {
      if (s.phase == Phase.CONTAINER && s.ended != null && s.error == null) {
        lastStart = lastStart == null || s.ended.isAfter(lastStart) ? s.ended : lastStart;
      }
    }
    if (lastStart == null) {
      return Optional.empty();
    }
    Step r = new Step(Phase.READINESS, null, lastStart);
    r.ended = now.isBefore(lastStart) ? lastStart : now;
    steps.add(r);
    return Optional.of(Duration.between(r.began, r.ended));
  }

  /** Whether this jkubelet saw any of the pod's start itself: a sandbox or a container. */
  synchronized boolean sawStart() {
    return steps.stream()
        .anyMatch(
            s ->
                s.phase == Phase.SANDBOX
                    || s.phase == Phase.CONTAINER
                    || s.phase == Phase.INIT_CONTAINER);
  }

  synchronized Instant began() {
    return steps.isEmpty() ? null : steps.get(0).began;
  }

  synchronized Timeline snapshot() {
    List<Timeline.Entry> entries = new ArrayList<>(steps.size());
    for (Step s : steps) {
      entries.add(
          new Timeline.Entry(
              s.phase.label(),
              s.name,
              s.began.toString(),
              s.ended == null ? null : s.ended.toString(),
              s.ended == null ? null : Timeline.between(s.began, s.ended),
              s.attempts,
              s.error,
              s.note));
    }
    Instant first = began();
    return new Timeline(
        namespace,
        name,
        uid,
        first == null ? null : first.toString(),
        readyAt == null ? null : readyAt.toString(),
        readyAt == null || first == null ? null : Timeline.between(first, readyAt),
        restarted,
        entries);
  }

  /** A timeline as its file kept it. */
  static PodTimeline of(Timeline t) {
    PodTimeline p = new PodTimeline(t.namespace(), t.name(), t.uid());
    for (Timeline.Entry e : t.phases()) {
      Step s = new Step(Phase.ofLabel(e.phase()), e.name(), Instant.parse(e.began()));
      s.ended = e.ended() == null ? null : Instant.parse(e.ended());
      s.attempts = Math.max(1, e.attempts());
      s.error = e.error();
      s.note = e.note();
      p.steps.add(s);
    }
    p.restarted = t.restarted();
    p.readyAt = t.ready() == null ? null : Instant.parse(t.ready());
    p.closed = p.readyAt != null;
    return p;
  }
}
