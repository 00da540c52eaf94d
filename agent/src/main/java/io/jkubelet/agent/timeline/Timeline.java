package io.jkubelet.agent.timeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One pod's start-up timeline as the kubelet API shows it and as its file keeps it: an immutable
 * snapshot. Times are RFC 3339 strings of the agent's clock; a phase that has not ended has no
 * {@code ended}; a phase begun again after a failure keeps its first {@code began} and counts its
 * {@code attempts}.
 *
 * @param began when the first phase began (the pod's admission, or jkubelet's restart when the
 *     phases before it are not known)
 * @param ready when the pod first became Ready; null while it starts
 * @param restarted whether jkubelet restarted while the pod was starting
 * @param phases in the order they began
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Timeline(
    String namespace,
    String name,
    String uid,
    String began,
    String ready,
    Double totalSeconds,
    boolean restarted,
    List<Entry> phases) {

  public Timeline {
    phases = List.copyOf(phases);
  }

  /**
   * One phase.
   *
   * @param phase the phase's label ({@link Phase#label()})
   * @param name what it is of: the image, the container; null for the pod's own phases
   * @param error why its last attempt failed, or null
   * @param note what else is worth knowing (a wait on another pod's pull, a restart)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Entry(
      String phase,
      String name,
      String began,
      String ended,
      Double seconds,
      int attempts,
      String error,
      String note) {

    /** How the event names it: "pull busybox", "sandbox". */
    String display() {
      return name == null ? phase : phase + " " + name;
    }
  }

  /**
   * The {@code StartupTimeline} event's message: the total and the three longest phases that ended,
   * e.g. {@code Ready 4.2s after admission; longest: pull busybox 2.9s, sandbox 0.6s, container app
   * 0.3s}.
   */
  public String summary() {
    boolean admitted = !phases.isEmpty() && phases.get(0).phase().equals(Phase.ADMISSION.label());
    String head =
        "Ready "
            + (totalSeconds == null ? "" : seconds(totalSeconds) + " ")
            + (admitted
                ? "after admission" + (restarted ? " (jkubelet restarted meanwhile)" : "")
                : "after jkubelet restarted (earlier phases not recorded)");
    // The network's set-up lies inside the sandbox's: it is shown with it rather than ranked.
    String network =
        phases.stream()
            .filter(e -> e.phase().equals(Phase.NETWORK.label()) && e.seconds() != null)
            .map(e -> " (network " + seconds(e.seconds()) + ")")
            .findFirst()
            .orElse("");
    String longest =
        phases.stream()
            .filter(e -> e.seconds() != null && e.error() == null)
            .filter(e -> !e.phase().equals(Phase.NETWORK.label()))
            .sorted(Comparator.comparingDouble(Entry::seconds).reversed())
            .limit(3)
            .map(
                e ->
                    e.display()
                        + " "
                        + seconds(e.seconds())
                        + (e.phase().equals(Phase.SANDBOX.label()) ? network : ""))
            .collect(Collectors.joining(", "));
    return longest.isEmpty() ? head : head + "; longest: " + longest;
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.1fs", s);
  }

  /** Seconds between two instants, never negative. */
  static double between(Instant a, Instant b) {
    return Math.max(0, Duration.between(a, b).toNanos() / 1e9);
  }
}
