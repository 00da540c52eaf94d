package io.jkubelet.agent;

import io.jkubelet.agent.credentials.NodeKeyring;
import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.kuberuntime.ImagePuller;
import io.jkubelet.agent.kuberuntime.NodeContext;
import io.jkubelet.agent.kuberuntime.PullCredentials;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.logs.LogCollector;
import io.jkubelet.agent.logs.RotatingLogWriter;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.volume.Mounter;
import io.jkubelet.agent.volume.TokenSource;
import io.jkubelet.agent.volume.VolumeManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Builds the half of an {@link Agent} that runs pods: the volume manager, and the runtime manager
 * with its image puller, hooks, DNS and node context; with the crash-loop and image-pull backoffs
 * that housekeeping forgets for gone pods. Builds only; starts nothing.
 */
final class RuntimeWiring {
  private RuntimeWiring() {}

  /** What was built. */
  record Built(
      RuntimeManager manager, VolumeManager volumes, Backoff crashBackoff, Backoff pullBackoff) {}

  static Built build(
      Setup setup, PodObjects objects, ProbeManager probes, ExecutorService workerExecutor) {
    var clock = setup.time().clock();
    var runtime = setup.runtime();
    Backoff crashBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    Backoff pullBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    VolumeManager volumes = volumeManager(setup, objects);
    RuntimeManager manager =
        new RuntimeManager(
            new RuntimeManager.Deps(
                runtime,
                new ImagePuller(
                    runtime,
                    setup.recorder(),
                    clock,
                    pullBackoff,
                    Duration.ofMinutes(5),
                    pullCredentials(setup, objects)),
                volumes,
                new HookRunner(runtime::exec, probes::httpClient, setup.time().sleeper()),
                objects,
                crashBackoff,
                setup.recorder(),
                clock),
            new RuntimeManager.Options(
                setup.options().podInfraImage(),
                setup.options().config().podInfraOomScoreAdj(),
                nodeContext(setup),
                () -> setup.host().nodeIp()),
            workerExecutor);
    return new Built(manager, volumes, crashBackoff, pullBackoff);
  }

  /**
   * The pods' pull secrets and the node's Docker config file, searched where upstream searches: the
   * root directory, the working directory, the home directory, the file system's root.
   */
  private static PullCredentials pullCredentials(Setup setup, PodObjects objects) {
    String home = System.getenv("HOME");
    Path homeDir = Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home);
    var paths =
        NodeKeyring.SearchPaths.upstream(
            setup.options().rootDir(), Path.of("").toAbsolutePath(), homeDir);
    return new PullCredentials(objects, new NodeKeyring(paths, setup.time().clock()));
  }

  /**
   * The node's allocatable (all of the machine: nothing is reserved), root directory, DNS, and the
   * pods' cgroup parent.
   */
  private static NodeContext nodeContext(Setup setup) {
    var config = setup.options().config();
    return new NodeContext(
        allocatable(setup),
        setup.options().rootDir(),
        new PodDns(
            config.clusterDNS(),
            config.clusterDomain(),
            config.resolvConf(),
            () -> setup.host().nodeIp(),
            setup.options().nodeName(),
            setup.recorder()),
        setup.containerManager()::cgroupParent);
  }

  private static NodeAllocatable allocatable(Setup setup) {
    var m = setup.host().machine();
    return new NodeAllocatable(m.cpus() * 1000L, m.memoryBytes(), m.ephemeralStorageBytes());
  }

  private static VolumeManager volumeManager(Setup setup, PodObjects objects) {
    return VolumeManager.create(
        new VolumeManager.Options(
            setup.options().rootDir(),
            objects,
            setup.cluster() == null ? TokenSource.NONE : TokenSource.api(setup.cluster().client()),
            Mounter.system(),
            setup.recorder(),
            setup.time().clock(),
            allocatable(setup)));
  }

  /**
   * The collector of container log files ({@code containerLogMaxSize}, {@code
   * containerLogMaxFiles}), fed by what the PLEG's cache says runs; it looks once a second.
   */
  static LogCollector logCollector(Setup setup, PodCache cache) {
    var config = setup.options().config();
    return LogCollector.create(
        new LogCollector.Options(
            setup.options().podLogPaths(),
            RotatingLogWriter.parseMaxSize(config.containerLogs().containerLogMaxSize()),
            config.containerLogs().containerLogMaxFiles(),
            setup.runtime(),
            // Nothing until the PLEG's first relist has ended: after a restart the streams (one
            // per container, each resuming where its file stopped) would otherwise compete with
            // that relist, which every pod's first status waits for.
            () ->
                !cache.relisted()
                    ? List.of()
                    : cache.snapshot().values().stream()
                        .map(PodCache.Entry::status)
                        .filter(java.util.Objects::nonNull)
                        .toList(),
            setup.time(),
            Duration.ofSeconds(1)));
  }
}
