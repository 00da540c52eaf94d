package io.jkubelet.agent.workers;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.Duration;

/**
 * One unit of work for a pod worker.
 *
 * @param pod the pod (for an orphan found in the runtime, a pod made from its container labels)
 * @param type why
 * @param kill how to kill, for {@link WorkType#KILL}; null otherwise
 */
public record UpdatePodOptions(Pod pod, WorkType type, @Nullable KillPodOptions kill) {
  public UpdatePodOptions {
    Records.requireNonNull(UpdatePodOptions.class, pod, type);
    if (type == WorkType.KILL && kill == null) {
      kill = KillPodOptions.DEFAULT;
    }
    if (type != WorkType.KILL && kill != null) {
      throw new IllegalArgumentException("kill options only go with KILL, not " + type);
    }
  }

  public static UpdatePodOptions of(Pod pod, WorkType type) {
    return new UpdatePodOptions(pod, type, null);
  }

  public String uid() {
    return pod.getMetadata().getUid();
  }

  /**
   * How to kill a pod.
   *
   * @param gracePeriodOverride a grace period that replaces the pod's own, or null
   * @param removeContainers whether to remove the stopped containers too (the pod is gone for
   *     good), rather than leave them for inspection
   * @param reason why, for the log
   * @param deletion whether the pod is being deleted and still in the API: its status after the
   *     kill is reported even when none was before (a pod found being deleted after a restart of
   *     jkubelet), so that the status manager can finish the deletion
   */
  public record KillPodOptions(
      Duration gracePeriodOverride, boolean removeContainers, String reason, boolean deletion) {
    public static final KillPodOptions DEFAULT =
        new KillPodOptions(null, true, "pod removed", false);

    public KillPodOptions {
      if (gracePeriodOverride != null && gracePeriodOverride.isNegative()) {
        throw new IllegalArgumentException("negative grace period " + gracePeriodOverride);
      }
    }

    /** For a pod being deleted: within the deletion's grace period when it has one. */
    public static KillPodOptions deletion(Pod pod) {
      Long grace = pod.getMetadata().getDeletionGracePeriodSeconds();
      return new KillPodOptions(
          grace == null ? null : Duration.ofSeconds(grace), true, "pod is being deleted", true);
    }
  }
}
