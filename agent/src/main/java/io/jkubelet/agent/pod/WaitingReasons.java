package io.jkubelet.agent.pod;

/**
 * The waiting reasons a container shows while jkubelet cannot run it, as upstream: what the runtime
 * manager gives a failed start, and what the pod's status shows.
 */
public final class WaitingReasons {
  public static final String CONTAINER_CREATING = "ContainerCreating";
  public static final String POD_INITIALIZING = "PodInitializing";
  public static final String CRASH_LOOP_BACK_OFF = "CrashLoopBackOff";
  public static final String ERR_IMAGE_PULL = "ErrImagePull";
  public static final String IMAGE_PULL_BACK_OFF = "ImagePullBackOff";
  public static final String ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull";
  public static final String INVALID_IMAGE_NAME = "InvalidImageName";
  public static final String CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError";
  public static final String CREATE_CONTAINER_ERROR = "CreateContainerError";
  public static final String RUN_CONTAINER_ERROR = "RunContainerError";
  public static final String POST_START_HOOK_ERROR = "PostStartHookError";

  private WaitingReasons() {}
}
