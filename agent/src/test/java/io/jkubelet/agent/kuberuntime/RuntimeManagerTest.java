package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.dns.PodDns;
import io.jkubelet.agent.env.NodeAllocatable;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.lifecycle.HookRunner;
import io.jkubelet.agent.objects.FakePodObjects;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ExecResult;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.Backoff;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.volume.FakeMounter;
import io.jkubelet.agent.volume.TokenSource;
import io.jkubelet.agent.volume.VolumeManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeManagerTest {
  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime =
      new FakeRuntime(clock, "jkubelet/busybox:1.35", "jkubelet/pause:3.2");
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final EventRecorder recorder = (o, t, reason, msg) -> events.add(reason + ": " + msg);
  private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
  private final FakePodObjects objects = new FakePodObjects();

  private final RecordingSleeper sleeper = new RecordingSleeper(clock);
  private final io.jkubelet.agent.timeline.PodTimelines timelines =
      io.jkubelet.agent.timeline.PodTimelines.create(
          clock, null, io.jkubelet.agent.timeline.PodTimelines.Listener.NONE);
  private final HookRunner hooks =
      new HookRunner(
          runtime::exec,
          () -> {
            throw new AssertionError("no HTTP hook in these tests");
          },
          sleeper);

  private RuntimeManager manager() {
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
                    PullCredentials.NONE,
                    TestImagePulls.unstarted(runtime, recorder, clock))),
            VolumeManager.create(
                new VolumeManager.Options(
                    root,
                    objects,
                    TokenSource.NONE,
                    new FakeMounter(),
                    recorder,
                    clock,
                    new NodeAllocatable(2000, 1L << 30, 1L << 34))),
            hooks,
            PodObjects.NONE,
            new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5)),
            new RuntimeManager.Reports(recorder, timelines),
            clock),
        new RuntimeManager.Options(
            "jkubelet/pause:3.2",
            0,
            new NodeContext(
                new NodeAllocatable(4000, 8L << 30, 100L << 30),
                root,
                new PodDns(
                    List.of("10.0.0.10"), "cluster.local", "", () -> "10.1.1.1", "n", recorder),
                NodeContext.DEFAULT_CGROUP_PARENT),
            () -> "10.1.1.1"),
        pool);
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private Pod podWithGrace(long grace) {
    Pod p = TestPods.simple("u1", "p", "a", "b");
    p.getSpec().setTerminationGracePeriodSeconds(grace);
    return p;
  }

  private void secret(String value) {
    objects.put(
        new io.fabric8.kubernetes.api.model.SecretBuilder()
            .withNewMetadata()
            .withName("db")
            .withNamespace("default")
            .endMetadata()
            .withData(
                Map.of(
                    "k",
                    java.util.Base64.getEncoder()
                        .encodeToString(value.getBytes(java.nio.charset.StandardCharsets.UTF_8))))
            .build());
  }

  @Test
  void aMissingSecretIsOneFailedMountAndNothingStartsThenItsFilesFollowUpdates() throws Exception {
    RuntimeManager m = manager();
    Pod pod = podWithGrace(2);
    pod.getSpec()
        .getVolumes()
        .add(
            new io.fabric8.kubernetes.api.model.VolumeBuilder()
                .withName("s")
                .withNewSecret()
                .withSecretName("db")
                .endSecret()
                .build());
    assertThatThrownBy(
            () -> m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE))
        .isInstanceOf(RuntimeManager.SyncError.class);
    assertThat(events)
        .containsExactly(
            "FailedMount: MountVolume.SetUp failed for volume \"s\" : secret \"db\" not found");
    assertThat(runtime.all()).isEmpty();

    secret("one");
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    assertThat(runtime.all()).filteredOn(f -> !f.sandbox).hasSize(2);
    Path file = root.resolve("pods/u1/volumes/kubernetes.io~secret/s/k");
    assertThat(java.nio.file.Files.readString(file)).isEqualTo("one");

    // A sync with nothing to do for the containers still refreshes the files.
    secret("two");
    clock.step(Duration.ofSeconds(1));
    var result = m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    assertThat(result).isEqualTo(PodSyncResult.NOOP);
    assertThat(java.nio.file.Files.readString(file)).isEqualTo("two");
  }

  @Test
  void killingUsesTheGracePeriodButNeverLessThanTwoSeconds() throws Exception {
    RuntimeManager m = manager();
    Pod pod = podWithGrace(0);
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    m.killPod(pod, runtime.podStatus(Configs.ref(pod)), null, false);
    assertThat(runtime.all())
        .filteredOn(f -> !f.sandbox)
        .extracting(f -> f.lastStopGrace)
        .containsOnly(Duration.ofSeconds(2));

    Pod slow = podWithGrace(45);
    slow.getMetadata().setUid("u2");
    m.syncPod(slow, runtime.podStatus(Configs.ref(slow)), Actions.FailedProbes.NONE);
    m.killPod(slow, runtime.podStatus(Configs.ref(slow)), null, true);
    assertThat(events).contains("Killing: Stopping container a", "Killing: Stopping container b");
    assertThat(runtime.all()).as("removed").noneMatch(f -> f.labels.containsValue("u2"));
  }

  @Test
  void anOrphanKnownOnlyFromTheRuntimeIsKilledWithTheGracePeriodOnItsContainers() throws Exception {
    RuntimeManager m = manager();
    Pod pod = podWithGrace(7);
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    Pod orphan =
        new io.fabric8.kubernetes.api.model.PodBuilder()
            .withNewMetadata()
            .withUid("u1")
            .withName("p")
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();
    m.killPod(orphan, runtime.podStatus(Configs.ref(orphan)), null, false);
    assertThat(runtime.all())
        .filteredOn(f -> !f.sandbox)
        .extracting(f -> f.lastStopGrace)
        .containsOnly(Duration.ofSeconds(7));
  }

  @Test
  void aRuntimeThatTakesFarLongerThanTheGracePeriodIsReported() throws Exception {
    RuntimeManager m = manager();
    Pod pod = podWithGrace(2);
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    runtime.onStop(() -> clock.step(Duration.ofSeconds(8)));
    m.killPod(pod, runtime.podStatus(Configs.ref(pod)), null, false);
    assertThat(events)
        .contains(
            "ExceededGracePeriod: Container runtime did not kill the pod within specified grace"
                + " period.");
  }

  @Test
  void aStopWithinTheGracePeriodIsNotReported() throws Exception {
    RuntimeManager m = manager();
    Pod pod = podWithGrace(2);
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    runtime.onStop(() -> clock.step(Duration.ofSeconds(2)));
    m.killPod(pod, runtime.podStatus(Configs.ref(pod)), null, false);
    assertThat(events).noneMatch(e -> e.startsWith("ExceededGracePeriod"));
  }

  @Test
  void anEnvSourceThatCannotBeReadIsACreateContainerConfigErrorWithItsEvent() throws Exception {
    Pod pod = podWithGrace(30);
    pod.getSpec()
        .getContainers()
        .get(0)
        .setEnv(
            List.of(
                new io.fabric8.kubernetes.api.model.EnvVarBuilder()
                    .withName("PW")
                    .withNewValueFrom()
                    .withNewSecretKeyRef("pw", "db", null)
                    .endValueFrom()
                    .build()));

    PodSyncResult r =
        manager().syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);

    String message = "couldn't get secret default/db, no kubeClient defined";
    assertThat(r.starts())
        .filteredOn(s -> s.container().equals("a"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.failure())
                    .isEqualTo(
                        new StartFailure(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR, message)));
    assertThat(events).contains("Failed: Error: " + message);
    assertThat(runtime.named("u1", "b")).hasSize(1);
  }

  @Test
  void runAsNonRootOnARootImageIsACreateContainerConfigErrorAndTheSecurityReachesTheRuntime()
      throws Exception {
    Pod pod =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p, namespace: ns, uid: u1}
            spec:
              securityContext: {runAsNonRoot: true, fsGroup: 42}
              containers:
              - {name: root, image: jkubelet/busybox:1.35}
              - {name: named, image: jkubelet/busybox:1.35, securityContext: {runAsUser: 1000}}
            """);

    PodSyncResult r =
        manager().syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);

    String message =
        "container has runAsNonRoot and image will run as root (pod: \"p_ns(u1)\", container:"
            + " root)";
    assertThat(r.starts())
        .filteredOn(s -> s.container().equals("root"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.failure())
                    .isEqualTo(
                        new StartFailure(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR, message)));
    assertThat(events).contains("Failed: Error: " + message);
    var started = runtime.named("u1", "named").get(0).config;
    assertThat(started.linux().security().user()).isEqualTo("1000");
    assertThat(started.linux().security().supplementalGroups()).containsExactly(42L);
    assertThat(started.mounts())
        .filteredOn(m -> m.containerPath().equals("/dev/termination-log"))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(Path.of(m.hostPath()))
                  .isRegularFile()
                  .hasParent(root.resolve("pods/u1/containers/named"));
              assertThat(Path.of(m.hostPath()).getFileName().toString()).matches("[0-9a-f]{8}");
              assertThat(m.readOnly()).isFalse();
            });
  }

  @Test
  void aNewPodGetsItsSandboxThenItsContainersWithEvents() throws Exception {
    Pod pod = podWithGrace(30);
    var empty = runtime.podStatus(Configs.ref(pod));
    runtime.clearCalls();
    PodSyncResult r = manager().syncPod(pod, empty, Actions.FailedProbes.NONE);
    assertThat(r.anyFailed()).isFalse();
    assertThat(runtime.calls())
        .filteredOn(c -> !c.startsWith("imagePresent"))
        .extracting(c -> c.split(" ")[0])
        .containsExactly(
            "runPodSandbox",
            "podStatus", // the new sandbox's IP, once, for the managed /etc/hosts
            "createContainer",
            "startContainer",
            "createContainer",
            "startContainer");
    assertThat(events).contains("Created: Created container a", "Started: Started container b");
    assertThat(root.resolve("pods").resolve(pod.getMetadata().getUid()).resolve("etc-hosts"))
        .content()
        .startsWith("# Kubernetes-managed hosts file.\n");
  }

  @Test
  void aSandboxThatCannotBeCreatedIsASyncErrorWithAnEvent() {
    runtime.failNext("runPodSandbox", new RuntimeError(RuntimeError.Kind.START, "no room"));
    Pod pod = podWithGrace(30);
    assertThatThrownBy(
            () ->
                manager()
                    .syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE))
        .isInstanceOf(RuntimeManager.SyncError.class);
    assertThat(events).contains("FailedCreatePodSandBox: Failed to create pod sandbox: no room");
  }

  @Test
  void anFqdnHostnameTooLongForTheKernelIsAFailedSandboxAndNothingRuns() {
    Pod pod = podWithGrace(30);
    pod.getSpec().setHostname("h".repeat(40));
    pod.getSpec().setSubdomain("sub");
    pod.getSpec().setSetHostnameAsFQDN(true);
    runtime.clearCalls();
    assertThatThrownBy(
            () ->
                manager()
                    .syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE))
        .isInstanceOf(RuntimeManager.SyncError.class);
    assertThat(events)
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith(
                        "FailedCreatePodSandBox: Failed to create pod sandbox: failed to construct"
                            + " FQDN from pod hostname and cluster domain, FQDN hhhh")
                    .endsWith("is too long (64 characters is the max, 70 characters requested)"));
    assertThat(runtime.calls()).noneMatch(c -> c.startsWith("runPodSandbox"));
  }

  @Test
  void aCreateFailureIsReportedPerContainerAndTheOthersStillStart() throws Exception {
    runtime.failNext("createContainer", new RuntimeError(RuntimeError.Kind.CREATE, "bad spec"));
    Pod pod = podWithGrace(30);
    PodSyncResult r =
        manager().syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    assertThat(r.starts())
        .extracting(s -> s.container() + "=" + (s.failure() == null ? "ok" : s.failure().reason()))
        .containsExactly("a=CreateContainerError", "b=ok");
    assertThat(events).contains("Failed: Error: bad spec");
  }

  private static Pod hooked(long grace, String lifecycle) {
    return TestPods.parse(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: default, uid: u1}
        spec:
          terminationGracePeriodSeconds: %d
          containers:
          - name: a
            image: 'jkubelet/busybox:1.35'
            command: [sleep, '3600']
            lifecycle:
        %s
        """
            .formatted(grace, lifecycle.indent(6).stripTrailing()));
  }

  private List<String> execAndStopCalls() {
    return runtime.calls().stream()
        .filter(c -> c.startsWith("exec") || c.startsWith("stopContainer"))
        .map(c -> c.replaceAll(" [0-9a-f-]{6,}", " <id>"))
        .toList();
  }

  @Test
  void aFailedPostStartHookIsAWarningAndTheContainerIsKilled() throws Exception {
    Pod pod = hooked(2, "postStart: {exec: {command: [sh, -c, 'exit 1']}}");
    runtime.onExec((c, cmd) -> new ExecResult(1, "no config\n", false));
    PodSyncResult r =
        manager().syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);

    assertThat(events)
        .containsSubsequence(
            "Started: Started container a",
            "FailedPostStartHook: Exec lifecycle hook ([sh -c exit 1]) for Container \"a\" in Pod"
                + " \"p_default(u1)\" failed - error: command 'sh -c exit 1' exited with 1,"
                + " message: \"no config\\n\"",
            "Killing: FailedPostStartHook");
    assertThat(r.starts())
        .singleElement()
        .satisfies(s -> assertThat(s.failure().reason()).isEqualTo("PostStartHookError"));
    assertThat(runtime.named("u1", "a"))
        .singleElement()
        .satisfies(f -> assertThat(f.state).isEqualTo(ContainerState.EXITED));
  }

  @Test
  void aPostStartHookThatSucceedsRunsInTheStartedContainer() throws Exception {
    Pod pod = hooked(2, "postStart: {exec: {command: [touch, /started]}}");
    PodSyncResult r =
        manager().syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    assertThat(r.starts()).singleElement().satisfies(s -> assertThat(s.failure()).isNull());
    assertThat(execAndStopCalls()).containsExactly("exec <id> touch /started");
    assertThat(runtime.named("u1", "a"))
        .singleElement()
        .satisfies(f -> assertThat(f.state).isEqualTo(ContainerState.RUNNING));
    assertThat(events).noneMatch(e -> e.startsWith("FailedPostStartHook"));
  }

  @Test
  void preStopRunsBeforeTheStopAndAFailureDoesNotStopTheKill() throws Exception {
    Pod pod = hooked(30, "preStop: {exec: {command: [sh, -c, 'exit 2']}}");
    RuntimeManager m = manager();
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    runtime.onExec((c, cmd) -> new ExecResult(2, "", false));
    m.killPod(pod, runtime.podStatus(Configs.ref(pod)), null, false);

    assertThat(execAndStopCalls()).startsWith("exec <id> sh -c exit 2", "stopContainer <id>");
    assertThat(events)
        .containsSubsequence(
            "Killing: Stopping container a",
            "FailedPreStopHook: Exec lifecycle hook ([sh -c exit 2]) for Container \"a\" in Pod"
                + " \"p_default(u1)\" failed - error: command 'sh -c exit 2' exited with 2,"
                + " message: \"\"");
    assertThat(runtime.named("u1", "a"))
        .singleElement()
        .satisfies(f -> assertThat(f.state).isEqualTo(ContainerState.EXITED));
  }

  @Test
  void aPreStopHookSpendsTheGracePeriodAndTheStopGetsTheRestButAtLeastTwoSeconds()
      throws Exception {
    RuntimeManager m = manager();
    Pod pod = hooked(30, "preStop: {sleep: {seconds: 5}}");
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    m.killPod(pod, runtime.podStatus(Configs.ref(pod)), null, false);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(5));
    assertThat(runtime.named("u1", "a").get(0).lastStopGrace).isEqualTo(Duration.ofSeconds(25));

    Pod slow = hooked(30, "preStop: {sleep: {seconds: 100}}");
    slow.getMetadata().setUid("u2");
    m.syncPod(slow, runtime.podStatus(Configs.ref(slow)), Actions.FailedProbes.NONE);
    m.killPod(slow, runtime.podStatus(Configs.ref(slow)), null, false);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(30));
    assertThat(runtime.named("u2", "a").get(0).lastStopGrace).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aContainerCreatedButNotYetStartedNeverCostsTheDeadOneItsPlaceAsLastState() throws Exception {
    RuntimeManager m = manager();
    Pod pod = TestPods.simple("u1", "p", "a");
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    String dead = runtime.named("u1", "a").get(0).id;
    runtime.exit(dead, 137, "");
    // The restart has created its container but not started it when the PLEG relists.
    var status = runtime.podStatus(Configs.ref(pod));
    String sandbox = status.sandboxes().get(0).id();
    runtime.createContainer(
        sandbox,
        Configs.container(
            pod,
            pod.getSpec().getContainers().get(0),
            false,
            Configs.Instance.of(sandbox, 1, Map.of(), List.of())));

    int removed = m.removeDeadContainers(runtime.podStatus(Configs.ref(pod)), 1);

    assertThat(removed).isZero();
    assertThat(runtime.named("u1", "a")).extracting(f -> f.id).contains(dead);
  }

  @Test
  void aContainersDeathLeavesTheNewestKeepExitedInstancesOfItsName() throws Exception {
    RuntimeManager m = manager();
    Pod pod = TestPods.simple("u1", "p", "a");
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    String sandbox = runtime.podStatus(Configs.ref(pod)).sandboxes().get(0).id();
    List<String> dead = new java.util.ArrayList<>();
    dead.add(runtime.named("u1", "a").get(0).id);
    runtime.exit(dead.get(0), 1, "");
    for (int restart = 1; restart < 4; restart++) {
      clock.step(Duration.ofSeconds(10));
      String id =
          runtime.createContainer(
              sandbox,
              Configs.container(
                  pod,
                  pod.getSpec().getContainers().get(0),
                  false,
                  Configs.Instance.of(sandbox, restart, Map.of(), List.of())));
      runtime.startContainer(id);
      runtime.exit(id, 1, "");
      dead.add(id);
    }

    assertThat(m.removeDeadContainers(runtime.podStatus(Configs.ref(pod)), 2)).isEqualTo(2);
    assertThat(runtime.named("u1", "a"))
        .extracting(f -> f.id)
        .containsExactlyInAnyOrder(dead.get(2), dead.get(3));
  }

  /** Upstream's qos policy over the node's 8 GiB (NodeContext): the runtime is asked for it. */
  @Test
  void eachContainerGetsTheOomScoreAdjOfItsPodsQosClass() throws Exception {
    Pod pod =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: q, namespace: default, uid: u9}
            spec:
              containers:
              - {name: b, image: jkubelet/busybox:1.35, resources: {requests: {memory: 1Gi}}}
              - {name: e, image: jkubelet/busybox:1.35}
            """);
    Pod guaranteed =
        TestPods.parse(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: g, namespace: default, uid: u10}
            spec:
              containers:
              - name: g
                image: jkubelet/busybox:1.35
                resources: {limits: {cpu: 100m, memory: 64Mi}}
            """);
    RuntimeManager m = manager();
    m.syncPod(pod, runtime.podStatus(Configs.ref(pod)), Actions.FailedProbes.NONE);
    m.syncPod(guaranteed, runtime.podStatus(Configs.ref(guaranteed)), Actions.FailedProbes.NONE);

    // Burstable: 1000 - 1000 * 1 GiB / 8 GiB; a container without a request in a Burstable pod
    // gets the same formula with 0, which stops at 999.
    assertThat(runtime.named("u9", "b").get(0).config.linux().resources().oomScoreAdj())
        .isEqualTo(875);
    assertThat(runtime.named("u9", "e").get(0).config.linux().resources().oomScoreAdj())
        .isEqualTo(999);
    assertThat(runtime.named("u10", "g").get(0).config.linux().resources().oomScoreAdj())
        .isEqualTo(-997);
  }
}
