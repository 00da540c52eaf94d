package io.jkubelet.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.cm.CgroupException;
import io.jkubelet.agent.cm.FakeContainerManager;
import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.kuberuntime.Actions;
import io.jkubelet.agent.kuberuntime.Configs;
import io.jkubelet.agent.kuberuntime.ImagePuller;
import io.jkubelet.agent.kuberuntime.NodeContext;
import io.jkubelet.agent.kuberuntime.OomEvents;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.prober.ContainerHealth;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.fake.FakeContainer;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.status.LocalStatusManager;
import io.jkubelet.agent.status.ReasonCache;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.volume.FakeMounter;
import io.jkubelet.agent.volume.TokenSource;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.UpdatePodOptions;
import io.jkubelet.agent.workers.WorkType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cgroup part of a pod's sync, as upstream's {@code syncPod}: the pod's cgroup is made before
 * its sandbox, the sandbox and containers go under it, a failure is an event and a failed sync, a
 * pod already in its cgroup is left alone, and a pod running outside its cgroup is started again
 * inside it.
 */
@Timeout(30)
class PodSyncCgroupsTest {
  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime =
      new FakeRuntime(clock, "jkubelet/busybox:1.35", "jkubelet/pause:3.2");
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final EventRecorder recorder = (o, t, reason, msg) -> events.add(reason + ": " + msg);
  private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
  private final PodCache cache = new PodCache();
  private final FakeContainerManager cgroups = new FakeContainerManager();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private RuntimeManager manager(java.util.function.Function<Pod, String> cgroupParent) {
    Backoff pull = new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    return new RuntimeManager(
        new RuntimeManager.Deps(
            runtime,
            new ImagePuller(
                new ImagePuller.Deps(
                    runtime,
                    recorder,
                    clock,
                    pull,
                    Duration.ofMinutes(1),
                    io.jkubelet.agent.kuberuntime.PullCredentials.NONE,
                    io.jkubelet.agent.kuberuntime.TestImagePulls.unstarted(
                        runtime, recorder, clock))),
            VolumeManager.create(
                new VolumeManager.Options(
                    root,
                    PodObjects.NONE,
                    TokenSource.NONE,
                    new FakeMounter(),
                    recorder,
                    clock,
                    new NodeAllocatable(2000, 1L << 30, 1L << 34))),
            new HookRunner(runtime::exec, () -> null, new RecordingSleeper(clock)),
            PodObjects.NONE,
            new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5)),
            new RuntimeManager.Reports(recorder, io.jkubelet.agent.timeline.PodTimelines.NONE),
            clock),
        new RuntimeManager.Options(
            "jkubelet/pause:3.2",
            0,
            new NodeContext(
                new NodeAllocatable(4000, 8L << 30, 100L << 30),
                root,
                new PodDns(List.of(), "cluster.local", "", () -> "10.1.1.1", "n", recorder),
                cgroupParent),
            () -> "10.1.1.1"),
        pool);
  }

  /** The pod sync with cgroups, or with none ({@code cgroupsPerQOS: false}). */
  private PodSync podSync(boolean withCgroups) {
    return new PodSync(
        new PodSync.Deps(
            runtime,
            manager(withCgroups ? cgroups::cgroupParent : p -> ""),
            cache,
            new LocalStatusManager(),
            ReasonCache.create(),
            new OomEvents(recorder, clock.instant(), OomEvents.Watch.NONE),
            new RuntimeManager.Reports(recorder, io.jkubelet.agent.timeline.PodTimelines.NONE),
            clock),
        new PodSync.Inputs(
            () -> "10.1.1.1",
            p -> false,
            uid -> ContainerHealth.NO_PROBES,
            Actions.FailedProbes.NONE,
            Optional::empty),
        withCgroups
            ? new PodSync.Cgroups(cgroups, () -> List.of(pod("other", "Always")))
            : PodSync.Cgroups.NONE);
  }

  private static Pod pod(String uid, String restartPolicy) {
    Pod p = TestPods.simple(uid, "p-" + uid, "app");
    p.getSpec().setRestartPolicy(restartPolicy);
    p.getSpec().setTerminationGracePeriodSeconds(2L);
    return p;
  }

  /** One sync on a fresh status of the pod. */
  private void sync(PodSync sync, Pod pod) throws Exception {
    PodRef ref = Configs.ref(pod);
    clock.step(Duration.ofMillis(10));
    cache.set(ref, runtime.podStatus(ref), null, clock.instant());
    sync.sync(new UpdatePodOptions(pod, WorkType.SYNC, null), clock.instant().minusMillis(1));
  }

  private List<FakeContainer> running(String uid) {
    return runtime.all().stream()
        .filter(f -> f.state == ContainerState.RUNNING)
        .filter(f -> uid.equals(f.labels.get(io.jkubelet.agent.runtime.Labels.POD_UID)))
        .toList();
  }

  private static String parent(FakeContainer f) {
    return f.sandbox ? f.sandboxConfig.linux().cgroupParent() : f.config.linux().cgroupParent();
  }

  @Test
  void aNewPodsCgroupIsMadeAfterTheQosTiersAndItsSandboxAndContainersRunInIt() throws Exception {
    Pod pod = pod("u1", "Always");
    sync(podSync(true), pod);

    assertThat(cgroups.calls()).containsExactly("updateQos 1", "ensurePod u1");
    assertThat(running("u1")).hasSize(2).allMatch(f -> parent(f).equals("/kubepods/podu1"));
  }

  @Test
  void withoutCgroupsThePodsRunInTheRuntimesDefaultParent() throws Exception {
    Pod pod = pod("u1", "Always");
    sync(podSync(false), pod);

    assertThat(cgroups.calls()).isEmpty();
    assertThat(running("u1")).hasSize(2).allMatch(f -> parent(f).isEmpty());
  }

  @Test
  void aCgroupThatCannotBeMadeIsAWarningAndAFailedSyncAndNothingStarts() throws Exception {
    cgroups.ensureError(new CgroupException("/kubepods/podu1", "No space left on device"));
    Pod pod = pod("u1", "Always");
    PodSync sync = podSync(true);

    assertThatThrownBy(() -> sync(sync, pod))
        .isInstanceOf(RuntimeManager.SyncError.class)
        .hasMessageContaining("failed to ensure that the pod: u1 cgroups exist")
        .hasMessageContaining("No space left on device");
    assertThat(events)
        .containsExactly(
            "FailedCreatePodContainer: unable to ensure pod container exists: cgroup"
                + " /kubepods/podu1: No space left on device");
    assertThat(runtime.all()).isEmpty();

    // The worker's retry succeeds once the cgroup can be made.
    cgroups.ensureError(null);
    sync(sync, pod);
    assertThat(running("u1")).hasSize(2);
  }

  @Test
  void aRunningPodWhoseCgroupExistsIsLeftAloneAsAfterARestartOfJkubelet() throws Exception {
    Pod pod = pod("u1", "Always");
    sync(podSync(true), pod);
    List<String> before = running("u1").stream().map(f -> f.id).toList();

    // A new jkubelet: the cgroup is there (made by the one before), the pod runs in it.
    PodSync restarted = podSync(true);
    sync(restarted, pod);
    sync(restarted, pod);

    assertThat(running("u1")).extracting(f -> f.id).containsExactlyElementsOf(before);
    assertThat(runtime.calls()).noneMatch(c -> c.startsWith("stopContainer"));
    assertThat(cgroups.calls()).containsExactly("updateQos 1", "ensurePod u1");
    assertThat(events).noneMatch(e -> e.startsWith("SandboxChanged"));
  }

  @Test
  void aPodStartedWithoutCgroupsIsKilledAndStartedAgainInItsCgroup() throws Exception {
    Pod pod = pod("u1", "Always");
    sync(podSync(false), pod);
    List<String> before = running("u1").stream().map(f -> f.id).toList();
    assertThat(before).hasSize(2);

    sync(podSync(true), pod);

    assertThat(running("u1"))
        .hasSize(2)
        .allMatch(f -> parent(f).equals("/kubepods/podu1"))
        .noneMatch(f -> before.contains(f.id));
    assertThat(cgroups.calls()).containsExactly("updateQos 1", "updateQos 1", "ensurePod u1");
  }

  @Test
  void aRunOncePodStartedWithoutCgroupsIsKilledAndNotStartedAgain() throws Exception {
    Pod pod = pod("u1", "Never");
    sync(podSync(false), pod);
    assertThat(running("u1")).hasSize(2);

    PodSync sync = podSync(true);
    sync(sync, pod);

    assertThat(running("u1")).isEmpty();
    assertThat(cgroups.calls()).containsExactly("updateQos 1");
    assertThat(runtime.all().stream().filter(f -> f.sandbox)).hasSize(1);
  }

  @Test
  void aKilledPodHasTheQosTiersUpdated() throws Exception {
    Pod pod = pod("u1", "Always");
    PodSync sync = podSync(true);
    sync(sync, pod);

    PodRef ref = Configs.ref(pod);
    clock.step(Duration.ofMillis(10));
    cache.set(ref, runtime.podStatus(ref), null, clock.instant());
    sync.sync(
        new UpdatePodOptions(
            pod, WorkType.KILL, new UpdatePodOptions.KillPodOptions(null, false, "test", false)),
        clock.instant().minusMillis(1));

    assertThat(running("u1")).isEmpty();
    assertThat(cgroups.calls()).containsExactly("updateQos 1", "ensurePod u1", "updateQos 1");
  }
}
