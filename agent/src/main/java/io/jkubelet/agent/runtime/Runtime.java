package io.jkubelet.agent.runtime;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/**
 * The container runtime contract, at the level of the CRI: pod sandboxes, containers and images.
 * What to run is decided above this interface (package {@code kuberuntime}); an implementation only
 * carries out one operation at a time and reports what exists.
 *
 * <p>Implementations must be thread-safe: pod workers call them concurrently for different pods.
 * Every method may throw {@link RuntimeError}.
 */
public interface Runtime {

  /** The runtime's name and version, as {@code docker://20.10.24} would print, e.g. "docker". */
  String type();

  /** The engine's version; also a health check, since it round-trips to the engine. */
  String version();

  /**
   * Lists the containers that jkubelet created (those with an {@code io.kubernetes.pod.uid} label),
   * sandboxes included, running or not. Containers without that label are never returned.
   */
  List<ContainerSummary> listContainers();

  /**
   * Inspects every sandbox and container of one pod. A pod with nothing in the runtime gets an
   * empty status, never an error.
   */
  PodStatus podStatus(PodRef pod);

  /**
   * As {@link #podStatus(PodRef)}, for the containers that a listing just named: the runtime need
   * not list the pod's containers again. The PLEG's relist inspects every pod that changed (all of
   * them after a restart of jkubelet) right after its listing; a container created since then is
   * left out until the next relist. Those that vanished are left out, as ever.
   */
  default PodStatus podStatus(PodRef pod, List<String> containerIds) {
    return podStatus(pod);
  }

  /**
   * The pod's sandboxes and containers, running or not, as {@link #listContainers} lists them: what
   * {@link #podStatus(PodRef)} inspects. A runtime that can list one pod's alone does (the engine's
   * work then does not grow with the node's pods).
   */
  default List<ContainerSummary> listContainers(PodRef pod) {
    return listContainers().stream().filter(c -> c.pod().uid().equals(pod.uid())).toList();
  }

  /** Creates and starts a sandbox; returns its id. */
  String runPodSandbox(SandboxConfig config);

  /** Stops a sandbox's container (SIGTERM, then SIGKILL after {@code grace}). */
  void stopPodSandbox(String sandboxId, Duration grace);

  /**
   * The path of a running sandbox's network namespace ({@code /proc/<pid>/ns/net}), as dockershim's
   * {@code GetNetNS}, for a network plugin; "" when the sandbox does not run or does not exist.
   */
  String sandboxNetNs(String sandboxId);

  /** Removes a stopped sandbox. Missing sandboxes are not an error. */
  void removePodSandbox(String sandboxId);

  /** Creates a container that joins the sandbox's network and IPC namespaces; returns its id. */
  String createContainer(String sandboxId, ContainerConfig config);

  void startContainer(String containerId);

  /** SIGTERM, wait up to {@code grace}, then SIGKILL. A container that is not running is fine. */
  void stopContainer(String containerId, Duration grace);

  /** Removes a container. Missing containers are not an error. */
  void removeContainer(String containerId);

  /**
   * Runs a command in a running container and waits for it at most {@code timeout}, as the CRI's
   * {@code ExecSync}: for exec probes and lifecycle hooks. A command that cannot be started (no
   * such container, not running) throws {@link RuntimeError}; a command that runs and fails is a
   * result with its exit code. A missing executable may be either: Docker reports it as a result
   * (exit code 126 or 127, the runtime's message as output), as upstream's probes see it. The
   * output kept is capped; a null or non-positive {@code timeout} waits without limit.
   */
  ExecResult exec(String containerId, List<String> command, Duration timeout);

  /**
   * Starts a command in a running container with the client's streams attached, as the CRI's {@code
   * Exec}: stdin (if any) is fed until its end, which the process sees as the end of its input;
   * stdout and stderr (or the TTY) go to the client as they come. Returns once the command runs;
   * {@link StreamHandle#await} gives its exit code. A container that does not exist is {@code
   * NOT_FOUND}; one that does not run is {@code OTHER}.
   */
  StreamHandle execStream(String containerId, List<String> command, StreamIo io);

  /**
   * Attaches the client's streams to a running container's main process, as the CRI's {@code
   * Attach}; {@code io.tty()} must match the container's. {@link StreamHandle#await} returns when
   * the container's output ends (it exited) or the handle is closed; closing it leaves the
   * container running.
   */
  StreamHandle attach(String containerId, StreamIo io);

  /**
   * Connects to {@code port} on the loopback address inside a pod sandbox's network namespace (so
   * ports bound to 127.0.0.1 in the pod are reached too), as the CRI's {@code PortForward}: bytes
   * from {@code in} go to the port until {@code in} ends; what the port sends goes to {@code out}.
   * A refused connection ends the stream with {@link RuntimeError} from {@link StreamHandle#await};
   * a sandbox that does not exist or does not run is an error at once.
   */
  StreamHandle portForward(String sandboxId, int port, InputStream in, OutputStream out);

  /** Whether the image is present locally. */
  boolean imagePresent(String image);

  /**
   * The user the image's config names ({@code USER}: {@code uid}, {@code name}, {@code uid:gid} or
   * {@code name:group}), or "" when it names none. A missing image is {@code NOT_FOUND}.
   */
  String imageUser(String image);

  /** The images on the node, each with its names and size, in no particular order. */
  List<ImageSummary> listImages();

  /**
   * Pulls an image presenting {@code auth} to the registry ({@link RegistryAuth#NONE}: anonymously,
   * not with any credential of the runtime's own); throws {@link RuntimeError} with kind {@code
   * IMAGE_PULL} when it fails, its message the engine's (no credential in it). The engine's
   * progress goes to {@code observer}, which may also cancel the pull ({@link PullObserver#NONE}:
   * nobody follows it).
   */
  void pullImage(String image, RegistryAuth auth, Duration timeout, PullObserver observer);

  /**
   * Calls {@code onChange} soon after any listed container starts, dies or goes away, as a fast
   * path for the relist (which stays the safety net: events may be lost). Reconnects by itself.
   * Returns what stops the watch. Runtimes without an event stream return a no-op.
   */
  default AutoCloseable watchContainerEvents(Runnable onChange) {
    return () -> {};
  }

  /**
   * Streams a container's output to the sink as the runtime keeps it; returns what stops the stream
   * early (the sink then gets no more output; {@code end} may or may not follow). Runtimes that
   * keep no output refuse with {@link UnsupportedOperationException}.
   */
  default AutoCloseable containerLogs(String containerId, LogRequest request, LogSink sink) {
    throw new UnsupportedOperationException(type() + " keeps no container logs");
  }

  /**
   * Follows a container's output entry by entry, with each entry's time and stream, from the first
   * entry at or after {@code since} (all of it when empty) until the container stops; an exited
   * container's output is delivered and then ends. Reads on a thread of the runtime's own (a
   * virtual one), never the caller's. Returns what stops the stream (the sink then gets nothing
   * more, and no {@code end}). Runtimes that keep no output refuse with {@link
   * UnsupportedOperationException}.
   */
  default AutoCloseable followLogEntries(
      String containerId, java.util.Optional<java.time.Instant> since, LogEntrySink sink) {
    throw new UnsupportedOperationException(type() + " keeps no container logs");
  }
}
