package io.jkubelet.agent.setup;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.cm.ContainerManagers;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.nodeshutdown.Logind;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.util.Rlimit;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the agent is built on that reaches outside the process, as upstream's {@code
 * kubelet.Dependencies}: time, the host's facts, the container engine, and the kernel's OOM kills.
 * {@link #forHost} makes the real ones; tests give fakes.
 *
 * @param time the clock, sleeper and schedulers every subsystem uses
 * @param host the node's IP and machine facts, read before building
 * @param engine the container engine, connected: asked for once the node's client certificate is in
 *     place (connecting may run beside that)
 * @param containerManager the pods' cgroups on this engine (upstream's {@code
 *     kubeDeps.ContainerManager}), not started; {@link ContainerManager#NONE} without {@code
 *     cgroupsPerQOS}
 * @param oomSource where the OOM watch reads the kills in the pods' containers (the cgroups of that
 *     container manager, and the kernel log), not started
 * @param eventWatchers watchers added to the event broadcaster beside the agent's own (tests)
 * @param logind systemd-logind, connected when asked (by graceful node shutdown, when it is on)
 * @param role how the agent shares its process: alone (the daemon), beside tests, or as one of many
 *     hollow nodes
 */
public record Dependencies(
    Time time,
    HostFacts host,
    Supplier<Engine> engine,
    Function<Engine, ContainerManager> containerManager,
    Function<ContainerManager, OomSource> oomSource,
    Map<String, Consumer<Event>> eventWatchers,
    Supplier<Logind> logind,
    Role role) {

  public Dependencies {
    Records.requireNonNull(
        Dependencies.class,
        time,
        host,
        engine,
        containerManager,
        oomSource,
        eventWatchers,
        logind,
        role);
    eventWatchers = Map.copyOf(eventWatchers);
  }

  /**
   * How the agent shares its process.
   *
   * @param ownsJvm whether the agent runs in a JVM of its own, whose heap it then keeps small
   * @param servesPorts whether the node's servers listen (the kubelet API, and the read-only and
   *     healthz ports its configuration asks for)
   * @param apiEvents whether the node's events go to the API server (they always go to the log and
   *     the other sinks)
   */
  public record Role(boolean ownsJvm, boolean servesPorts, boolean apiEvents) {
    /** The daemon: its own JVM, its ports. */
    public static final Role DAEMON = new Role(true, true, true);

    /** An agent in a test's JVM, serving its ports. */
    public static final Role EMBEDDED = new Role(false, true, true);

    /**
     * One of many hollow nodes in one JVM: no ports, and, as kubemark's hollow kubelet (which has
     * no event client), no events to the API server unless asked for.
     */
    public static Role hollow(boolean apiEvents) {
      return new Role(false, false, apiEvents);
    }
  }

  /** Whether the agent runs in a JVM of its own. */
  public boolean ownsJvm() {
    return role.ownsJvm();
  }

  /** Whether the node's events go to the API server. */
  public boolean apiEvents() {
    return role.apiEvents();
  }

  /** Whether the node's servers listen; hollow nodes' do not. */
  public boolean servesPorts() {
    return role.servesPorts();
  }

  /**
   * The container engine as the agent uses it.
   *
   * @param runtime the runtime, scoped to the node's containers
   * @param images the engine's images, for image garbage collection
   * @param cgroupDriver the engine's cgroup driver; may throw while it does not answer
   * @param rootDir the engine's root directory, for the image file system; empty while unknown
   */
  public record Engine(
      Runtime runtime,
      ImageService images,
      Supplier<Optional<String>> cgroupDriver,
      Supplier<Optional<Path>> rootDir) {
    /** An engine that says nothing of its driver or root (tests' fakes). */
    public static Engine of(Runtime runtime, ImageService images) {
      return new Engine(runtime, images, Optional::empty, Optional::empty);
    }
  }

  /**
   * This host's: the system clock, the host's facts, the pods' cgroups, and Docker at the options'
   * endpoint, connected on a thread of its own while the rest of the agent is read and built
   * (Docker's client costs a fifth of a second of a start, mostly loading classes).
   */
  public static Dependencies forHost(KubeletOptions options) {
    Time time = Time.system();
    CompletableFuture<DockerRuntime> docker =
        CompletableFuture.supplyAsync(
            () ->
                DockerRuntime.connect(
                        options.engine().dockerHost(),
                        time,
                        options.config().runtime().runtimeRequestTimeout())
                    .scopedTo(Map.of(Labels.NODE, options.nodeName())),
            r -> Thread.ofVirtual().name("docker-connect").start(r));
    Rlimit.setOpenFiles(options.config().node().host().maxOpenFiles());
    // Host facts are read here, once, so that building the agent does no I/O.
    HostFacts host = HostFacts.read(options.nodeIp(), options.nodeName(), options.rootDir());
    Supplier<Engine> engine =
        () -> {
          DockerRuntime d = connected(docker);
          return new Engine(d, d.imageService(), d::cgroupDriver, d::rootDir);
        };
    Function<Engine, ContainerManager> cgroups =
        e ->
            ContainerManagers.create(
                options.subsystems().cgroups(), host.machine(), e.cgroupDriver(), options.config());
    Function<ContainerManager, OomSource> oom =
        cm ->
            OomSource.forHost(
                Path.of("/sys/fs/cgroup"),
                Path.of("/dev/kmsg"),
                cm::podCgroupPaths,
                Schedulers.system());
    return new Dependencies(
        time, host, engine, cgroups, oom, Map.of(), Logind::connect, Role.DAEMON);
  }

  /** The connected runtime; a failure to connect is thrown as it was thrown. */
  private static DockerRuntime connected(CompletableFuture<DockerRuntime> engine) {
    try {
      return engine.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
