package io.jkubelet.agent.prober;

/**
 * Counts a probe's consecutive conclusive results and says when one crosses its threshold, as
 * upstream's worker does with {@code lastResult} and {@code resultRun}.
 *
 * <p>Not thread-safe: the worker's lock guards it.
 */
final class ResultRun {
  private final int successThreshold;
  private final int failureThreshold;
  private ProbeResult last = ProbeResult.UNKNOWN;
  private int run;

  ResultRun(ProbeSettings settings) {
    this.successThreshold = settings.successThreshold();
    this.failureThreshold = settings.failureThreshold();
  }

  /** Starts over, as for a new container. */
  void reset() {
    last = ProbeResult.UNKNOWN;
    run = 0;
  }

  /** Starts from a known result, as if it had just crossed its threshold. */
  void seed(ProbeResult result) {
    last = result;
    run = Math.max(successThreshold, failureThreshold);
  }

  /**
   * Counts a conclusive result ({@code SUCCESS} or {@code FAILURE}).
   *
   * @return whether the run of this result reached its threshold, so that it is to be published
   */
  boolean add(ProbeResult result) {
    if (result == last) {
      run++;
    } else {
      last = result;
      run = 1;
    }
    return result == ProbeResult.FAILURE ? run >= failureThreshold : run >= successThreshold;
  }

  /** Empties the run but remembers the last result, as upstream when a probe goes on hold. */
  void clear() {
    run = 0;
  }
}
