package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.TestApiServer.TestNamespace;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.TestProxy;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.PodDefaults;
import java.net.URL;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The status manager against a real kube-apiserver ({@code JKUBELET_TEST_KUBECONFIG}, see {@code
 * deploy/scripts/k8s-up.sh}). Pods are bound to a Node object of each test's own that no kubelet
 * runs (registered, so that the pod garbage collector keeps its pods), and the manager writes as
 * that node, as the Node authorizer and NodeRestriction allow; everything lives in a namespace of
 * this class's own.
 */
@Timeout(120)
class ApiStatusManagerTest {
  private static KubernetesClient admin;
  private static TestNamespace ns;

  private final String node = "node-" + UUID.randomUUID().toString().substring(0, 8);
  private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  @BeforeAll
  static void namespace() {
    admin = TestApiServer.adminClient();
    ns = new TestNamespace(admin, "status");
  }

  @AfterAll
  static void cleanUp() {
    if (ns != null) {
      ns.close();
    }
    if (admin != null) {
      admin.close();
    }
  }

  @BeforeEach
  void registerNode() {
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
  }

  @AfterEach
  void stopManagers() throws Exception {
    for (AutoCloseable c : closeAfter) {
      c.close();
    }
    TestApiServer.deleteNode(admin, node);
  }

  private ApiStatusManager manager(Duration syncPeriod, Predicate<Pod> canBeDeleted) {
    KubernetesClient asNode = TestApiServer.nodeClient(node);
    ApiStatusManager m = manager(asNode, syncPeriod, canBeDeleted);
    closeAfter.add(asNode::close); // after the manager stops
    return m;
  }

  private ApiStatusManager manager(
      KubernetesClient client, Duration syncPeriod, Predicate<Pod> canBeDeleted) {
    ApiStatusManager m =
        new ApiStatusManager(
            client, Clock.systemUTC(), 50, 100, canBeDeleted, this::seen, syncPeriod);
    closeAfter.add(m::stop);
    m.start();
    return m;
  }

  /** The pod source's view of the API: here a fresh list of the namespace, by UID. */
  private Optional<Pod> seen(String uid) {
    return admin.pods().inNamespace(ns.name).list().getItems().stream()
        .filter(p -> p.getMetadata().getUid().equals(uid))
        .findFirst();
  }

  private static Pod get(String name) {
    return admin.pods().inNamespace(ns.name).withName(name).get();
  }

  private static PodStatus apiStatus(String name) {
    return get(name).getStatus();
  }

  private static String random(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void aStatusReachesTheApiWithoutWaitingForTheRecheck() {
    Pod pod = ns.createPod(random("web"), node, Map.of(), "app", "sidecar");
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);
    PodStatus status = ApiStatusFixtures.running(pod, now, "10.88.0.5", true, 0);

    m.setPodStatus(pod, status);

    // Well before the 10 s re-check; how fast it is belongs in a benchmark, not a test (a
    // 1-second bound failed once under the CI's load).
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> "Running".equals(apiStatus(pod.getMetadata().getName()).getPhase()));
    PodStatus got = apiStatus(pod.getMetadata().getName());
    assertThat(got.getConditions())
        .extracting(PodCondition::getType)
        .containsExactly("Initialized", "Ready", "ContainersReady", "PodScheduled");
    assertThat(got.getConditions())
        .allSatisfy(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getLastTransitionTime()).isEqualTo(StatusGenerator.time(now));
            });
    assertThat(got.getContainerStatuses())
        .extracting(ContainerStatus::getName)
        .containsExactly("app", "sidecar");
    assertThat(got.getContainerStatuses())
        .allSatisfy(
            c -> {
              assertThat(c.getContainerID()).matches("docker://[0-9a-f]{64}");
              assertThat(c.getImageID()).startsWith("docker://sha256:");
              assertThat(c.getState().getRunning().getStartedAt()).isNotNull();
              assertThat(c.getReady()).isTrue();
              assertThat(c.getStarted()).isTrue();
              assertThat(c.getRestartCount()).isZero();
            });
    assertThat(got.getPodIP()).isEqualTo("10.88.0.5");
    assertThat(got.getPodIPs()).extracting(PodIP::getIp).containsExactly("10.88.0.5");
    assertThat(got.getHostIP()).isEqualTo(ApiStatusFixtures.HOST_IP);
    assertThat(got.getStartTime()).isEqualTo(status.getStartTime());
    assertThat(got.getQosClass()).isEqualTo("BestEffort");
    // The API shows the patch before the manager has counted it (its answer is still on the way).
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() >= 1);
    assertThat(m.stats().writes()).isEqualTo(1);
    assertThat(m.healthy().ok()).isTrue();
  }

  @Test
  void quickChangesCoalesceAndAnUnchangedStatusWritesNothing() {
    Pod pod = ns.createPod(random("burst"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);

    for (int restarts = 1; restarts <= 5; restarts++) {
      m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.6", true, restarts));
    }

    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              List<ContainerStatus> cs = apiStatus(name).getContainerStatuses();
              return !cs.isEmpty() && cs.get(0).getRestartCount() == 5;
            });
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().pending() == 0);
    long writes = m.stats().writes();
    assertThat(writes).as("writes for 5 changes").isBetween(1L, 5L);

    // The same status again, and the same with only a newer lastProbeTime.
    m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.6", true, 5));
    PodStatus probed = ApiStatusFixtures.running(pod, now, "10.88.0.6", true, 5);
    probed.getConditions().get(1).setLastProbeTime(StatusGenerator.time(now.plusSeconds(30)));
    m.setPodStatus(pod, probed);

    assertThat(m.stats().pending()).isZero();
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> m.stats().writes() == writes);
  }

  @Test
  void listsAndConditionsAreReplacedNotMergedAndForeignConditionsStay() {
    Pod pod = ns.createPod(random("lists"), node, Map.of(), "a", "b");
    String name = pod.getMetadata().getName();
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);
    m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.7", false, 0));
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> assertThat(condition(apiStatus(name), "Ready").getReason()).isNotNull());
    assertThat(condition(apiStatus(name), "Ready").getMessage())
        .isEqualTo("containers with unready status: [a b]");
    // A readiness gate's condition, written by someone else.
    admin
        .pods()
        .inNamespace(ns.name)
        .withName(name)
        .subresource("status")
        .edit(
            p ->
                new PodBuilder(p)
                    .editStatus()
                    .addToConditions(
                        new PodConditionBuilder()
                            .withType("example.com/gate")
                            .withStatus("True")
                            .build())
                    .endStatus()
                    .build());

    PodStatus next = ApiStatusFixtures.running(pod, now, "10.88.0.8", true, 0);
    next.getContainerStatuses().removeIf(c -> c.getName().equals("b"));
    m.setPodStatus(pod, next);

    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> assertThat(condition(apiStatus(name), "Ready").getStatus()).isEqualTo("True"));
    PodStatus got = apiStatus(name);
    assertThat(condition(got, "Ready").getReason()).isNull();
    assertThat(condition(got, "Ready").getMessage()).isNull();
    assertThat(condition(got, "ContainersReady").getReason()).isNull();
    assertThat(got.getContainerStatuses())
        .extracting(ContainerStatus::getName)
        .containsExactly("a");
    assertThat(got.getPodIPs()).extracting(PodIP::getIp).containsExactly("10.88.0.8");
    assertThat(got.getConditions())
        .extracting(PodCondition::getType)
        .containsExactly(
            "Initialized", "Ready", "ContainersReady", "PodScheduled", "example.com/gate");
  }

  /**
   * Why the patch carries explicit nulls and a replace directive: without them, a strategic merge
   * patch of a pod's status (upstream's patch type) lets a condition keep the reason and message of
   * its previous version, as the API server merges {@code conditions} by type, and refuses a new
   * pod IP next to the old one, as it merges {@code podIPs} by IP.
   */
  @Test
  void aStrategicMergePatchWithoutNullsAndReplaceLeavesStaleFieldsAndCannotChangeThePodIp() {
    Pod pod = ns.createPod(random("smp"), node, Map.of(), "a");
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    patch(name, uid, ApiStatusFixtures.running(pod, now, "10.88.0.9", false, 0));

    naivePatch(name, uid, ApiStatusFixtures.running(pod, now, "10.88.0.9", true, 0));

    PodStatus got = apiStatus(name);
    assertThat(condition(got, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(got, "Ready").getReason()).isEqualTo("ContainersNotReady");
    assertThatThrownBy(
            () -> naivePatch(name, uid, ApiStatusFixtures.running(pod, now, "10.88.0.10", true, 0)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("no more than one IP for each IP family");
            });

    patch(name, uid, ApiStatusFixtures.running(pod, now, "10.88.0.10", true, 0));

    got = apiStatus(name);
    assertThat(condition(got, "Ready").getReason()).isNull();
    assertThat(got.getPodIPs()).extracting(PodIP::getIp).containsExactly("10.88.0.10");
  }

  @Test
  void theApiServerRefusesAStatusPatchCarryingAnotherUid() {
    Pod pod = ns.createPod(random("uid"), node, Map.of(), "a");
    String name = pod.getMetadata().getName();

    assertThatThrownBy(
            () ->
                patch(
                    name,
                    UUID.randomUUID().toString(),
                    ApiStatusFixtures.running(pod, now, "10.88.0.11", true, 0)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> assertThat(e.getCode()).as(e.getMessage()).isIn(409, 422));
    assertThat(apiStatus(name).getContainerStatuses()).isNullOrEmpty();
  }

  /** The manager's patch, sent by the admin. */
  private static void patch(String name, String uid, PodStatus status) {
    admin
        .pods()
        .inNamespace(ns.name)
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), StatusPatches.patch(uid, status));
  }

  /** A strategic merge patch of the status as it is, as Go's JSON of a PodStatus would be. */
  private static void naivePatch(String name, String uid, PodStatus status) {
    Pod body = new PodBuilder().withNewMetadata().withUid(uid).endMetadata().build();
    body.setStatus(status);
    admin
        .pods()
        .inNamespace(ns.name)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            io.fabric8.kubernetes.client.utils.Serialization.asJson(body));
  }

  @Test
  void aPodReplacedByANewOneOfTheSameNameDoesNotGetTheOldStatus() {
    String name = random("replaced");
    Pod old = ns.createPod(name, node, Map.of(), "app");
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);
    m.setPodStatus(old, ApiStatusFixtures.pending(old, now));
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 1);

    admin.pods().inNamespace(ns.name).withName(name).withGracePeriod(0).delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> get(name) == null);
    Pod replacement = ns.createPod(name, node, Map.of(), "app");
    m.setPodStatus(old, ApiStatusFixtures.running(old, now, "10.88.0.12", true, 0));

    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().forgotten() == 1);
    Pod got = get(name);
    assertThat(got.getMetadata().getUid()).isEqualTo(replacement.getMetadata().getUid());
    assertThat(got.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(got.getStatus().getContainerStatuses()).isNullOrEmpty();
    assertThat(m.stats().writes()).isEqualTo(1);

    // A later status of the old pod is kept locally but never written.
    m.setPodStatus(old, ApiStatusFixtures.running(old, now, "10.88.0.13", true, 1));
    assertThat(m.stats().pending()).isZero();
    assertThat(m.getPodStatus(old.getMetadata().getUid()).orElseThrow().getPodIP())
        .isEqualTo("10.88.0.13");
  }

  @Test
  void aStaticPodsStatusGoesToItsMirrorPodOnceThereIsOne() {
    String name = random("static");
    String uid = UUID.randomUUID().toString();
    Pod staticPod =
        TestPods.builder(ns.name, name, uid)
            .editMetadata()
            .addToAnnotations(Annotations.CONFIG_SOURCE, "file")
            .addToAnnotations(Annotations.CONFIG_HASH, uid)
            .endMetadata()
            .editSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("app")
            .withImage("jkubelet/busybox:1.35")
            .endContainer()
            .endSpec()
            .build();
    PodDefaults.apply(staticPod);
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);

    m.setPodStatus(staticPod, ApiStatusFixtures.running(staticPod, now, "10.88.0.14", true, 0));

    await().atMost(Duration.ofSeconds(3)).until(() -> m.stats().skips() >= 1);
    assertThat(m.stats().writes()).isZero();
    assertThat(get(name)).isNull();

    Pod mirror =
        ns.createPod(
            name,
            node,
            Map.of(
                Annotations.CONFIG_MIRROR, uid,
                Annotations.CONFIG_HASH, uid,
                Annotations.CONFIG_SOURCE, "file"),
            "app");
    assertThat(mirror.getMetadata().getUid()).isNotEqualTo(uid);

    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> "Running".equals(apiStatus(name).getPhase()));
    PodStatus got = apiStatus(name);
    assertThat(got.getPodIP()).isEqualTo("10.88.0.14");
    assertThat(got.getContainerStatuses().get(0).getContainerID()).startsWith("docker://");
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() >= 1);
    assertThat(m.stats().writes()).isEqualTo(1);
    assertThat(get(name).getMetadata().getUid()).isEqualTo(mirror.getMetadata().getUid());
  }

  @Test
  void aStatusThatSomeoneElseChangedIsWrittenBackByTheReCheck() {
    Pod pod = ns.createPod(random("other"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    ApiStatusManager m = manager(Duration.ofSeconds(1), p -> false);
    m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.18", true, 0));
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 1);

    patch(
        name,
        pod.getMetadata().getUid(),
        new PodStatusBuilder(apiStatus(name)).withPodIP("10.88.0.99").withPodIPs().build());

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> "10.88.0.18".equals(apiStatus(name).getPodIP()));
    assertThat(m.stats().writes()).isEqualTo(2);
  }

  @Test
  void aWriteIsOnePatchAndTheReCheckOfPodsInSyncSendsNoRequest() {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(ns.createPod(random("quiet"), node, Map.of(), "app"));
    }
    AtomicInteger requests = new AtomicInteger();
    KubernetesClient counted =
        TestApiServer.nodeClient(
            node,
            b ->
                b.withHttpClientBuilderConsumer(
                    h ->
                        h.addOrReplaceInterceptor(
                            "count",
                            new Interceptor() {
                              @Override
                              public void before(
                                  BasicBuilder builder,
                                  HttpRequest request,
                                  Interceptor.RequestTags tags) {
                                requests.incrementAndGet();
                              }
                            })));
    ApiStatusManager m = manager(counted, Duration.ofMillis(500), p -> false);
    closeAfter.add(counted::close);
    for (Pod p : pods) {
      m.setPodStatus(p, ApiStatusFixtures.running(p, now, "10.88.0.19", true, 0));
    }
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 3);
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().pending() == 0);
    int before = requests.get();
    assertThat(before).as("requests to write the pods the source has: a patch each").isEqualTo(3);
    long syncs = m.stats().syncs();

    await().atMost(Duration.ofSeconds(5)).until(() -> m.stats().syncs() >= syncs + 3);

    assertThat(requests.get()).as("requests in three re-checks of pods in sync").isEqualTo(before);
  }

  /**
   * The pod source's copy of a pod may be behind our last write: a status that goes A, B and back
   * to A is written back although the copy still says A.
   */
  @Test
  void aStatusChangedBackIsWrittenAlthoughThePodSourcesCopyIsBehind() {
    Pod pod = ns.createPod(random("back"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    PodStatus a = ApiStatusFixtures.running(pod, now, "10.88.0.20", true, 0);
    PodStatus b = ApiStatusFixtures.running(pod, now, "10.88.0.20", false, 0);
    AtomicReference<Pod> copy = new AtomicReference<>();
    KubernetesClient asNode = TestApiServer.nodeClient(node);
    closeAfter.add(asNode::close);
    ApiStatusManager m =
        new ApiStatusManager(
            asNode,
            Clock.systemUTC(),
            50,
            100,
            p -> false,
            uid -> Optional.ofNullable(copy.get()),
            Duration.ofSeconds(10));
    closeAfter.add(m::stop);
    m.start();
    m.setPodStatus(pod, a);
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 1);
    copy.set(get(name)); // the source saw A, and sees nothing after it

    m.setPodStatus(pod, b);
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 2);
    assertThat(condition(apiStatus(name), "Ready").getStatus()).isEqualTo("False");
    m.setPodStatus(pod, a);

    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> assertThat(condition(apiStatus(name), "Ready").getStatus()).isEqualTo("True"));
    assertThat(m.stats().writes()).isEqualTo(3);
  }

  @Test
  void aPodThatIsFinishedOnTheNodeIsDeletedForGood() {
    Pod first = ns.createPod(random("del"), node, Map.of(), "app");
    Pod second = ns.createPod(random("del"), node, Map.of(), "app");
    Set<String> finished = ConcurrentHashMap.newKeySet();
    ApiStatusManager m =
        manager(Duration.ofSeconds(1), p -> finished.contains(p.getMetadata().getUid()));
    for (Pod p : List.of(first, second)) {
      m.setPodStatus(p, ApiStatusFixtures.running(p, now, "10.88.0.15", true, 0));
    }
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 2);

    for (Pod p : List.of(first, second)) {
      admin
          .pods()
          .inNamespace(ns.name)
          .withName(p.getMetadata().getName())
          .withGracePeriod(30)
          .delete();
    }
    Pod firstDeleting = get(first.getMetadata().getName());
    assertThat(firstDeleting.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(get(second.getMetadata().getName()).getMetadata().getDeletionTimestamp())
        .isNotNull();
    finished.add(first.getMetadata().getUid());
    finished.add(second.getMetadata().getUid());

    // The kubelet reports the first pod's last status: it is deleted at once.
    m.setPodStatus(firstDeleting, ApiStatusFixtures.running(first, now, "10.88.0.15", false, 0));
    await().atMost(Duration.ofSeconds(1)).until(() -> get(first.getMetadata().getName()) == null);
    // The second is found by the periodic re-check.
    await().atMost(Duration.ofSeconds(5)).until(() -> get(second.getMetadata().getName()) == null);
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().deletes() >= 2);
    assertThat(m.stats().deletes()).isEqualTo(2);
  }

  @Test
  void aPodThatIsNotFinishedOnTheNodeStaysTerminating() {
    Pod pod = ns.createPod(random("stay"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    ApiStatusManager m = manager(Duration.ofSeconds(1), p -> false);
    m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.16", true, 0));
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 1);

    admin.pods().inNamespace(ns.name).withName(name).withGracePeriod(30).delete();
    m.setPodStatus(get(name), ApiStatusFixtures.running(pod, now, "10.88.0.16", false, 0));
    long syncs = m.stats().syncs();
    await().atMost(Duration.ofSeconds(5)).until(() -> m.stats().syncs() >= syncs + 2);

    assertThat(get(name).getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(m.stats().deletes()).isZero();
    assertThat(condition(apiStatus(name), "Ready").getStatus()).isEqualTo("False");
  }

  @Test
  void aTerminalPhaseInTheApiIsNotMovedBack() {
    Pod pod = ns.createPod(random("done"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    patch(
        name,
        pod.getMetadata().getUid(),
        new PodStatusBuilder(ApiStatusFixtures.pending(pod, now)).withPhase("Succeeded").build());
    ApiStatusManager m = manager(Duration.ofSeconds(10), p -> false);

    m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.17", true, 0));

    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().skips() >= 1);
    assertThat(apiStatus(name).getPhase()).isEqualTo("Succeeded");
    assertThat(m.stats().writes()).isZero();
  }

  @Test
  void statusesConvergeWhenTheApiServerComesBack() throws Exception {
    URL api = admin.getMasterUrl();
    TestProxy proxy = new TestProxy(api.getHost(), api.getPort());
    closeAfter.add(proxy);
    Pod pod = ns.createPod(random("outage"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    ApiStatusManager m =
        manager(
            TestApiServer.client("https://127.0.0.1:" + proxy.port()),
            Duration.ofSeconds(10),
            p -> false);
    m.setPodStatus(pod, ApiStatusFixtures.pending(pod, now));
    await().atMost(Duration.ofSeconds(2)).until(() -> m.stats().writes() == 1);

    proxy.down();
    for (int restarts = 1; restarts <= 3; restarts++) {
      m.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.18", true, restarts));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> m.stats().failures() >= 1);
    assertThat(m.healthy().ok()).isTrue();
    assertThat(apiStatus(name).getPhase()).isEqualTo("Pending");

    proxy.up();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              List<ContainerStatus> cs = apiStatus(name).getContainerStatuses();
              return "Running".equals(apiStatus(name).getPhase())
                  && cs.get(0).getRestartCount() == 3;
            });
    assertThat(m.healthy().ok()).isTrue();
  }

  @Test
  void aFailingCanBeDeletedIsSurvivedButADeadSyncThreadIsReported() {
    Pod pod = ns.createPod(random("fatal"), node, Map.of(), "app");
    String name = pod.getMetadata().getName();
    admin.pods().inNamespace(ns.name).withName(name).withGracePeriod(30).delete();
    ApiStatusManager survivor =
        manager(
            Duration.ofSeconds(10),
            p -> {
              throw new IllegalStateException("cannot tell");
            });
    survivor.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.19", true, 0));
    await().atMost(Duration.ofSeconds(2)).until(() -> survivor.stats().writes() == 1);
    assertThat(survivor.healthy().ok()).isTrue();

    ApiStatusManager doomed =
        manager(
            Duration.ofSeconds(10),
            p -> {
              throw new Error("simulated fatal error");
            });
    doomed.setPodStatus(pod, ApiStatusFixtures.running(pod, now, "10.88.0.20", true, 0));

    await().atMost(Duration.ofSeconds(2)).until(() -> !doomed.healthy().ok());
    assertThat(doomed.healthy().message()).contains("sync thread died").contains("simulated");
  }

  private static PodCondition condition(PodStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " condition in " + s.getConditions()));
  }
}
