package io.jkubelet.agent.parts;

import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.hung.GuardedRuntime;
import io.jkubelet.agent.kuberuntime.ImagePuller;
import io.jkubelet.agent.kuberuntime.ImagePulls;
import io.jkubelet.agent.kuberuntime.NodeContext;
import io.jkubelet.agent.kuberuntime.PullCredentials;
import io.jkubelet.agent.kuberuntime.PullLimits;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.metrics.ImagePullMetrics;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.volume.Mounter;
import io.jkubelet.agent.volume.TokenSource;
import io.jkubelet.agent.volume.VolumeManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * What a pod's sync asks of the engine through, for {@link PodParts}: the volumes, the image pulls
 * (their limits, credentials and back-off) and the runtime manager that starts and kills a pod's
 * containers with them. Only builds; nothing here starts.
 */
final class ContainerParts {
  final VolumeManager volumes;
  final Backoff crashBackoff;
  final Backoff pullBackoff;
  final ImagePulls imagePulls;
  final RuntimeManager runtimeManager;

  /**
   * @param runtime the engine as the pod workers call it, under deadlines
   * @param probes the probe manager, whose exec and HTTP client the lifecycle hooks use
   * @param workerExecutor the pod workers' executor, on which a pod's containers start side by side
   */
  ContainerParts(
      Inputs in, GuardedRuntime runtime, ProbeManager probes, ExecutorService workerExecutor) {
    var time = in.deps().time();
    var clock = time.clock();
    var config = in.options().config();
    var recorder = in.events().recorder();
    var machine = in.deps().host().machine();
    NodeAllocatable capacity =
        new NodeAllocatable(
            machine.cpus() * 1000L, machine.memoryBytes(), machine.ephemeralStorageBytes());
    volumes =
        VolumeManager.create(
            new VolumeManager.Options(
                in.options().rootDir(),
                in.objects(),
                in.apiClient() == null ? TokenSource.NONE : TokenSource.api(in.apiClient()),
                Mounter.system(),
                recorder,
                clock,
                capacity));
    crashBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    pullBackoff = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    imagePulls =
        new ImagePulls(
            runtime,
            recorder,
            time,
            config.images(),
            new ImagePullMetrics(in.metrics()),
            in.timelines());
    runtimeManager =
        new RuntimeManager(
            new RuntimeManager.Deps(
                runtime,
                new ImagePuller(
                    new ImagePuller.Deps(
                        PullLimits.of(
                            runtime,
                            clock,
                            config.runtime().registryPullQPS(),
                            config.runtime().registryBurst(),
                            config.runtime().serializeImagePulls()),
                        recorder,
                        clock,
                        pullBackoff,
                        null, // no limit, as upstream: the progress deadline stops a stalled pull
                        PullCredentials.forNode(in.options().rootDir(), in.objects(), clock),
                        imagePulls)),
                volumes,
                new HookRunner(runtime::exec, probes::httpClient, time.sleeper()),
                in.objects(),
                crashBackoff,
                new RuntimeManager.Reports(recorder, in.timelines()),
                clock),
            new RuntimeManager.Options(
                in.options().podInfraImage(),
                config.pods().podInfraOomScoreAdj(),
                new NodeContext(
                    capacity,
                    in.options().rootDir(),
                    new PodDns(
                        config.pods().dns().clusterDNS(),
                        config.pods().dns().clusterDomain(),
                        config.pods().dns().resolvConf(),
                        () -> in.deps().host().nodeIp(),
                        in.options().nodeName(),
                        recorder),
                    in.containerManager()::cgroupParent),
                () -> in.deps().host().nodeIp()),
            workerExecutor);
  }

  /** The back-offs that housekeeping forgets a pod's entries of. */
  List<Backoff> backoffs() {
    return List.of(crashBackoff, pullBackoff);
  }
}
