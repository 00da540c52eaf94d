package io.jkubelet.agent.timeline;

/**
 * A phase of a pod's start, in the order a start goes through them. Each has the label the
 * timeline's JSON and events show, and the {@code phase} label of {@code
 * kubelet_pod_start_phase_duration_seconds}.
 */
public enum Phase {
  /** From the pod's arrival in the sync loop to the admitter's answer. */
  ADMISSION("admission", "admission"),
  /** Making the pod's cgroup (with {@code cgroupsPerQOS}). */
  POD_CGROUP("pod cgroup", "pod_cgroup"),
  /** Creating the sandbox, its image pull and its network set-up included. */
  SANDBOX("sandbox", "sandbox"),
  /** The network plugin's set-up of the sandbox (inside {@link #SANDBOX}). */
  NETWORK("network", "network"),
  /** The pod's volumes, the first time they are all set up. */
  VOLUMES("volumes", "volumes"),
  /** One image's pull, named by the image; a wait on a pull another pod started counts too. */
  IMAGE_PULL("pull", "image_pull"),
  /** One init container, from its start until it exits. */
  INIT_CONTAINER("init", "init_container"),
  /** One app container's create, start and postStart hook. */
  CONTAINER("container", "container_start"),
  /** From the last container start to the pod's first Ready. */
  READINESS("readiness", "readiness"),
  /** A marker, not a phase: jkubelet restarted while the pod was starting. */
  KUBELET_RESTARTED("kubelet restarted", "kubelet_restarted");

  private final String label;
  private final String metric;

  Phase(String label, String metric) {
    this.label = label;
    this.metric = metric;
  }

  /** What the timeline and the event call it. */
  public String label() {
    return label;
  }

  /** The metric's {@code phase} label. */
  public String metricLabel() {
    return metric;
  }

  /** The phase a label names, as the timeline's file has it. */
  static Phase ofLabel(String label) {
    for (Phase p : values()) {
      if (p.label.equals(label)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown phase " + label);
  }
}
