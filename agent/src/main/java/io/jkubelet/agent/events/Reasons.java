package io.jkubelet.agent.events;

/** Event reasons, as the upstream kubelet names them in {@code pkg/kubelet/events/event.go}. */
public final class Reasons {
  private Reasons() {}

  // Container events.
  public static final String CREATED = "Created";
  public static final String STARTED = "Started";
  public static final String FAILED = "Failed";
  public static final String KILLING = "Killing";
  public static final String PREEMPTING = "Preempting";
  public static final String BACK_OFF = "BackOff";
  public static final String EXCEEDED_GRACE_PERIOD = "ExceededGracePeriod";

  /** jkubelet's own: a pod still not gone well after its deletion, and what holds it. */
  public static final String TERMINATION_STUCK = "TerminationStuck";

  // Probe and lifecycle hook events.
  public static final String UNHEALTHY = "Unhealthy";
  public static final String FAILED_POST_START_HOOK = "FailedPostStartHook";
  public static final String FAILED_PRE_STOP_HOOK = "FailedPreStopHook";

  // Pod events.
  public static final String FAILED_KILL_POD = "FailedKillPod";
  public static final String FAILED_CREATE_POD_CONTAINER = "FailedCreatePodContainer";
  public static final String NETWORK_NOT_READY = "NetworkNotReady";

  // Image events.
  public static final String PULLING = "Pulling";
  public static final String PULLED = "Pulled";
  public static final String ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull";
  public static final String INSPECT_FAILED = "InspectFailed";

  /** A pull secret could not be read (upstream's reason since v1.23; v1.20 logs only). */
  public static final String FAILED_TO_RETRIEVE_IMAGE_PULL_SECRET =
      "FailedToRetrieveImagePullSecret";

  // Kubelet events.
  public static final String FAILED_VALIDATION = "FailedValidation";
  public static final String FAILED_MOUNT = "FailedMount";
  public static final String INVALID_ENVIRONMENT_VARIABLE_NAMES = "InvalidEnvironmentVariableNames";
  public static final String FAILED_SYNC = "FailedSync";
  public static final String SANDBOX_CHANGED = "SandboxChanged";
  public static final String FAILED_CREATE_POD_SANDBOX = "FailedCreatePodSandBox";

  /** Not upstream's: a pod asks for a host port that the node's CNI network cannot map. */
  public static final String HOST_PORT_IGNORED = "HostPortIgnored";

  public static final String STARTING_KUBELET = "Starting";

  // Node events: the message is "Node %s status is now: %s" with the reason.
  public static final String NODE_READY = "NodeReady";
  public static final String NODE_NOT_READY = "NodeNotReady";
  public static final String NODE_HAS_SUFFICIENT_MEMORY = "NodeHasSufficientMemory";
  public static final String NODE_HAS_NO_DISK_PRESSURE = "NodeHasNoDiskPressure";
  public static final String NODE_HAS_SUFFICIENT_PID = "NodeHasSufficientPID";
  public static final String NODE_HAS_INSUFFICIENT_MEMORY = "NodeHasInsufficientMemory";
  public static final String NODE_HAS_DISK_PRESSURE = "NodeHasDiskPressure";
  public static final String NODE_HAS_INSUFFICIENT_PID = "NodeHasInsufficientPID";
  public static final String EVICTED = "Evicted";
  public static final String EVICTION_THRESHOLD_MET = "EvictionThresholdMet";

  // Garbage collection events (upstream's, on the Node).
  public static final String INVALID_DISK_CAPACITY = "InvalidDiskCapacity";
  public static final String FREE_DISK_SPACE_FAILED = "FreeDiskSpaceFailed";
  public static final String IMAGE_GC_FAILED = "ImageGCFailed";
  public static final String CONTAINER_GC_FAILED = "ContainerGCFailed";

  // jkubelet's own.
  public static final String OOM_KILLED = "OOMKilled";

  /** jkubelet's own: a pod's first Ready, with how long its start took and where the time went. */
  public static final String STARTUP_TIMELINE = "StartupTimeline";

  /** A process of a container OOM-killed while the container's main process runs on. */
  public static final String OOM_KILLING = "OOMKilling";

  /** A runtime call for one container has not returned within its bound (package {@code hung}). */
  public static final String RUNTIME_CALL_HUNG = "RuntimeCallHung";
}
