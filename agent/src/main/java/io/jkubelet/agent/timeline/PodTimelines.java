package io.jkubelet.agent.timeline;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The start-up timelines of the node's pods: the subsystems that start a pod mark when each {@link
 * Phase} begins and ends, and the timeline closes when the pod first becomes Ready. A phase begun
 * again after it succeeded is not recorded again (volumes are set up on every sync); one begun
 * again after a failure keeps its first begin and counts the attempt. After the pod is Ready
 * nothing more is recorded: a container restarted later is not part of the start.
 *
 * <p>A timeline is written to {@code <root-dir>/pods/<uid>/timeline.json} at each phase's begin and
 * end. When jkubelet restarts, the next admission of the pod reads it back and adds a {@code
 * kubelet restarted} marker; a phase open at the restart ends when it is next seen to end (an init
 * container's exit, from the engine's time) or is begun again. A pod that was already starting
 * without a file gets the marker only, never times made up for what happened before.
 *
 * <p>Thread-safe: the pod workers, the sync loop and the kubelet API call it at once; each pod's
 * timeline has its own lock.
 */
public interface PodTimelines {
  /** Records nothing: {@code podStartTimeline: false}. */
  PodTimelines NONE = new Off();

  /**
   * Timelines kept in memory and, when {@code podsDir} is not null, in {@code
   * <podsDir>/<uid>/timeline.json}.
   */
  static PodTimelines create(Clock clock, Path podsDir, Listener listener) {
    return new TimelineRecorder(clock, podsDir, listener);
  }

  /** One phase in progress. */
  interface Span {
    /** A span that records nothing. */
    Span NONE =
        new Span() {
          @Override
          public void end() {}

          @Override
          public void fail(String why) {}

          @Override
          public void note(String note) {}
        };

    /** The phase succeeded now. */
    void end();

    /** The phase's attempt failed now; a later {@link #begin} tries it again. */
    void fail(String why);

    /** Adds what else is worth knowing of the phase. */
    void note(String note);
  }

  /** Told of each phase that ended well: the per-phase histograms. */
  @FunctionalInterface
  interface Listener {
    Listener NONE = (phase, took) -> {};

    void phaseEnded(Phase phase, Duration took);
  }

  /**
   * Opens the pod's timeline, or reads it back after a restart, and begins its admission. A pod
   * that was already Ready before a restart, with nothing on file, gets no timeline.
   */
  Span admission(Pod pod);

  /** Begins a phase of a pod; {@link Span#NONE} when the pod's timeline is closed or unknown. */
  Span begin(String podUid, Phase phase, String name);

  /**
   * Ends a phase begun in an earlier sync (an init container seen exited), at {@code at}, or does
   * nothing when it is not open.
   *
   * @param error why it failed (an exit code), or null
   */
  void ended(String podUid, Phase phase, String name, Instant at, String error);

  /**
   * The pod is Ready: closes its timeline, the first time only, with the readiness phase.
   *
   * @return the closed timeline, for the {@code StartupTimeline} event; empty after the first call
   */
  Optional<Timeline> ready(String podUid);

  /** The timeline of the pod of this name, the latest admitted; empty when there is none. */
  Optional<Timeline> find(String namespace, String name);

  /** Whether timelines are recorded at all. */
  boolean enabled();

  /** Forgets a removed pod (its file goes with its directory). */
  void forget(String podUid);

  /** {@link #NONE}. */
  final class Off implements PodTimelines {
    private Off() {}

    @Override
    public Span admission(Pod pod) {
      return Span.NONE;
    }

    @Override
    public Span begin(String podUid, Phase phase, String name) {
      return Span.NONE;
    }

    @Override
    public void ended(String podUid, Phase phase, String name, Instant at, String error) {}

    @Override
    public Optional<Timeline> ready(String podUid) {
      return Optional.empty();
    }

    @Override
    public Optional<Timeline> find(String namespace, String name) {
      return Optional.empty();
    }

    @Override
    public boolean enabled() {
      return false;
    }

    @Override
    public void forget(String podUid) {}
  }
}
