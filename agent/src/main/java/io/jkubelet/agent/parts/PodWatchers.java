package io.jkubelet.agent.parts;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.eviction.EvictionManager;
import io.jkubelet.agent.hung.GuardedRuntime;
import io.jkubelet.agent.kuberuntime.ImagePulls;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.metrics.OomKillCollector;
import io.jkubelet.agent.nodeshutdown.NodeShutdownManager;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.server.PodsWithStatus;
import io.jkubelet.agent.status.ActivePods;
import io.jkubelet.agent.terminating.StuckTerminations;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.UpdatePodOptions.KillPodOptions;
import io.jkubelet.agent.workers.WorkType;
import io.jkubelet.config.FeatureGates;
import io.jkubelet.config.Records;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What watches pods from outside their syncs, built beside {@link PodParts} from the parts the
 * syncs use: node shutdown (which stops every pod as an eviction), the OOM watch (read on the pods'
 * syncs; a kill the kernel log reports syncs its pod at once) and the stuck terminations (what
 * holds a pod being deleted). Builds only; the composition root starts and stops them.
 */
final class PodWatchers {
  final NodeShutdownManager shutdown;
  final OomSource oomSource;
  final OomEvents oomEvents;
  final StuckTerminations terminations;

  /**
   * The pod parts the watchers read.
   *
   * @param runtime the guarded runtime, whose hung calls {@code /pods} shows on their pods
   * @param imagePulls the pulls in flight, which {@code /pods} shows beside the stuck terminations
   * @param syncSoon syncs the pod with this uid now rather than at its next due time
   * @param workers the pod workers, asked only once the agent runs (they are built after this)
   */
  record Parts(
      GuardedRuntime runtime,
      PodManager podManager,
      PodCache cache,
      RuntimeManager runtimeManager,
      VolumeManager volumes,
      ImagePulls imagePulls,
      Consumer<String> syncSoon,
      Supplier<PodWorkers> workers) {
    Parts {
      Records.requireNonNull(
          Parts.class,
          runtime,
          podManager,
          cache,
          runtimeManager,
          volumes,
          imagePulls,
          syncSoon,
          workers);
    }
  }

  private final Inputs in;
  private final Parts parts;

  PodWatchers(Inputs in, Parts parts) {
    this.in = in;
    this.parts = parts;
    var time = in.deps().time();
    var config = in.options().config();
    var recorder = in.events().recorder();
    shutdown =
        NodeShutdownManager.create(
            FeatureGates.gracefulNodeShutdown(config.node().featureGates()),
            NodeShutdownManager.Options.of(config.node().shutdown()),
            shutdownPods(),
            in.deps().logind(),
            time);
    oomSource = in.deps().oomSource().apply(in.containerManager());
    oomEvents =
        new OomEvents(
            recorder,
            time.clock().instant(),
            // The main process is read again of the engine itself, as rarely as a kill is found
            // in a running container: uncounted and untracked, and the guarded runtime's last
            // known statuses stay whole.
            new OomEvents.Watch(
                oomSource, OomEvents.mainPidOf(in.engine().engine().runtime()), parts.syncSoon()));
    in.metrics().register(new OomKillCollector(oomEvents::kills));
    terminations =
        StuckTerminations.create(
            new StuckTerminations.Sources(
                parts.podManager()::pods,
                uid -> parts.cache().get(uid).map(PodCache.Entry::status),
                in.engine().runtime(),
                parts.runtimeManager().preStopsRunning(),
                parts.volumes()::teardownFailure),
            new StuckTerminations.Options(config.pods().lifecycle().terminationStuckAfter()),
            time,
            recorder);
  }

  /**
   * jkubelet's own annotations of a pod on {@code /pods}: the JSON of the pulls it waits on ({@link
   * ImagePulls#forPod}), of what holds it while it is stuck deleting ({@link
   * StuckTerminations#report}), and of its runtime calls that hang ({@link GuardedRuntime#hungOf});
   * empty for none.
   */
  Map<String, String> annotations(String podUid) {
    var pulls = parts.imagePulls().forPod(podUid);
    var stuck = terminations.report(podUid);
    var hung = parts.runtime().hungOf(podUid);
    if (pulls.isEmpty() && stuck.isEmpty() && hung.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    if (!pulls.isEmpty()) {
      out.put(PodsWithStatus.IMAGE_PULLS, ApiSerialization.SHARED.asJson(pulls));
    }
    stuck.ifPresent(
        r -> out.put(PodsWithStatus.TERMINATION_STUCK, ApiSerialization.SHARED.asJson(r)));
    if (!hung.isEmpty()) {
      out.put(PodsWithStatus.RUNTIME_CALLS_HUNG, ApiSerialization.SHARED.asJson(hung));
    }
    return out;
  }

  /**
   * The pods as the eviction manager sees them: the active pods, whether one still runs anything
   * (the PLEG's cache), its status, and its eviction ({@link #kill}).
   */
  EvictionManager.Pods evictionPods() {
    return new EvictionManager.Pods(
        this::active,
        pod ->
            parts
                .cache()
                .get(pod.getMetadata().getUid())
                .map(e -> !e.status().anyRunning())
                .orElse(true),
        this::status,
        (pod, failed, grace) -> kill(pod, failed, grace, "evicted"));
  }

  /**
   * A pod stopped from outside its syncs, by an eviction or node shutdown: its failed status, then
   * a KILL to its worker, which gives {@code why} as the kill's reason.
   */
  private void kill(Pod pod, PodStatus failed, Duration grace, String why) {
    in.statuses().setPodStatus(pod, failed);
    parts
        .workers()
        .get()
        .update(
            new UpdatePodOptions(pod, WorkType.KILL, new KillPodOptions(grace, false, why, false)));
  }

  private List<Pod> active() {
    return new ActivePods(parts.podManager(), in.statuses()).get();
  }

  private Optional<PodStatus> status(Pod pod) {
    return in.statuses().getPodStatus(pod.getMetadata().getUid());
  }

  /**
   * The pods as the node shutdown manager stops them: as an eviction ({@link #kill}), awaited
   * through the workers and the status manager. Asked only once the agent runs, so the workers read
   * here are built by then.
   */
  private NodeShutdownManager.Pods shutdownPods() {
    return new NodeShutdownManager.Pods() {
      @Override
      public List<Pod> active() {
        return PodWatchers.this.active();
      }

      @Override
      public Optional<PodStatus> status(Pod pod) {
        return PodWatchers.this.status(pod);
      }

      @Override
      public void kill(Pod pod, PodStatus failed, Duration grace) {
        PodWatchers.this.kill(pod, failed, grace, "node shutdown");
      }

      @Override
      public boolean awaitStopped(Collection<Pod> pods, Duration timeout)
          throws InterruptedException {
        return parts.workers().get().awaitTerminated(uids(pods), timeout);
      }

      @Override
      public boolean awaitStatusesWritten(Collection<Pod> pods, Duration timeout)
          throws InterruptedException {
        return in.statuses().awaitWritten(uids(pods), timeout);
      }

      private List<String> uids(Collection<Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getUid()).toList();
      }
    };
  }
}
