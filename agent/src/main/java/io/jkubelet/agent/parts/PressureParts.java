package io.jkubelet.agent.parts;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.admission.PodAdmitter;
import io.jkubelet.agent.admission.Sysctls;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.eviction.DedicatedImageFs;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.eviction.EvictionOptions;
import io.jkubelet.agent.eviction.SummaryPodUsage;
import io.jkubelet.agent.eviction.SummarySignals;
import io.jkubelet.agent.gc.ContainerGc;
import io.jkubelet.agent.metrics.EvictionMetrics;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.stats.EngineRoot;
import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.StatsOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The node's readings and what it makes of them: one reader of the node's memory, disks and
 * processes, which the eviction manager reads through and whose latest reading the stats summary
 * reports (so the summary shows what eviction decided on); the pod admitter, which offers the
 * node's allocatable; and the eviction manager. Built in two steps, because the eviction manager
 * needs the pod workers, which need the admitter: {@link #PressureParts} builds the readings and
 * the admitter, {@link #evictionManager} the manager, once; the admitter asks it from then on.
 */
final class PressureParts {
  private final Inputs in;
  final Supplier<Path> engineRoot;
  final NodeReader nodeReader;
  final SummaryProvider summary;
  final PodAdmitter admitter;
  private final PodAdmitter.Handler shutdownAdmit;
  private EvictionManager eviction;

  /**
   * @param shutdownAdmit the node shutdown manager's admit handler, asked before the eviction
   *     manager's
   */
  PressureParts(Inputs in, PodCache cache, PodAdmitter.Handler shutdownAdmit) {
    this.in = in;
    this.shutdownAdmit = shutdownAdmit;
    var clock = in.deps().time().clock();
    var config = in.options().config();
    // Asking the engine for its root is a call to it: asked once, then kept.
    engineRoot = new EngineRoot(() -> in.engine().engine().rootDir().get().orElse(null), clock);
    StatsOptions stats =
        StatsOptions.host(
            in.options().nodeName(),
            in.deps().host().machine().memoryBytes(),
            in.options().rootDir(),
            engineRoot,
            in.options().podLogPaths(),
            in.containerManager()::podCgroupPaths,
            in.containerManager().podCgroupRoot());
    nodeReader = NodeReader.create(stats, clock);
    summary =
        SummaryProvider.create(
            stats,
            nodeReader,
            () -> cache.snapshot().values().stream().map(PodCache.Entry::status).toList(),
            clock);
    var allocatable = in.allocatable().allocatable();
    admitter =
        new PodAdmitter(
            allocatable.milliCpu(),
            allocatable.memoryBytes(),
            config.pods().maxPods(),
            in.statuses(),
            in.events().recorder(),
            clock,
            Sysctls.allowing(config.pods().allowedUnsafeSysctls()),
            this::admit);
  }

  /** The handlers before the admitter's own checks: node shutdown, then node pressure. */
  private Optional<PodAdmitter.Refusal> admit(Pod pod) {
    return shutdownAdmit.admit(pod).or(() -> evictionAdmit(pod));
  }

  /** The eviction manager's admit handler: pods refused under node pressure. */
  private Optional<PodAdmitter.Refusal> evictionAdmit(Pod pod) {
    return eviction.admit(pod).map(m -> new PodAdmitter.Refusal(Reasons.EVICTED, m));
  }

  /**
   * The eviction manager: signals from the node's reader, the pods' usage from the summary,
   * evictions as {@code pods} carries them out, disk reclaimed through {@code containerGc} and the
   * image GC first.
   */
  EvictionManager evictionManager(EvictionManager.Pods pods, ContainerGc containerGc) {
    var config = in.options().config();
    var cg = config.resources().cgroups();
    boolean enforcePods = cg.cgroupsPerQOS() && cg.enforceNodeAllocatable().contains("pods");
    EvictionMetrics listener = new EvictionMetrics();
    in.metrics().register(listener);
    eviction =
        EvictionManager.create(
            EvictionOptions.of(
                config.resources().eviction().thresholds(enforcePods),
                config.resources().eviction().evictionPressureTransitionPeriod(),
                config.resources().eviction().evictionMaxPodGracePeriod()),
            new EvictionManager.Parts(
                in.options().nodeName(),
                new SummarySignals(nodeReader),
                new SummaryPodUsage(summary),
                new DedicatedImageFs(in.options().rootDir(), engineRoot),
                pods,
                new EvictionManager.Reclaim(containerGc, in.engine().imageGarbageCollector()),
                in.events().recorder(),
                listener),
            in.deps().time());
    return eviction;
  }
}
