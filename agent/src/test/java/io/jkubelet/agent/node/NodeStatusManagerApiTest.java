package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.jkubelet.agent.TestApiServer;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.RecordingRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.util.ApiRequests;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Lifecycle.Health;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Time;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node status manager against a real kube-apiserver v1.20 (deploy/scripts/k8s-up.sh). Each test
 * uses its own node name and deletes the Node and Lease it made.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeStatusManagerApiTest {
  private static final String ENV = "JKUBELET_TEST_KUBECONFIG";
  private static final Duration FAST = Duration.ofMillis(200);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static Config config;
  private static KubernetesClient admin;

  @TempDir Path rootDir;
  private final String nodeName = "node-" + UUID.randomUUID().toString().substring(0, 8);
  private final RecordingRecorder recorder = new RecordingRecorder();
  private final List<NodeStatusManager> managers = new ArrayList<>();
  private final List<KubernetesClient> clients = new ArrayList<>();
  private NodeInfo machine;
  private final AtomicReference<List<ImageSummary>> images =
      new AtomicReference<>(
          List.of(
              new ImageSummary(List.of("busybox:1.29"), 1_200_000),
              new ImageSummary(List.of("k8s.gcr.io/pause:3.2", "pause:latest"), 680_000),
              new ImageSummary(List.of("nginx:1.14-alpine"), 16_000_000)));

  @BeforeAll
  static void cluster() {
    String path = System.getenv(ENV);
    if (path == null || path.isBlank()) {
      fail(
          ENV
              + " is not set. These tests need a real API server: run"
              + " `deploy/scripts/k8s-up.sh STATE_DIR` and set "
              + ENV
              + " to the kubeconfig path it prints.");
    }
    if (!new File(path).isFile()) {
      fail(ENV + "=" + path + " is not a file; deploy/scripts/k8s-up.sh prints the right path.");
    }
    config = Config.fromKubeconfig(new File(path));
    admin = new KubernetesClientBuilder().withConfig(config).build();
  }

  @AfterAll
  static void closeAdmin() {
    if (admin != null) {
      admin.close();
    }
  }

  @BeforeEach
  void host() {
    machine = NodeInfo.read(rootDir);
  }

  @AfterEach
  void cleanUp() {
    managers.forEach(NodeStatusManager::stop);
    clients.forEach(KubernetesClient::close);
    TestApiServer.deleteNode(admin, nodeName);
    admin.leases().inNamespace(NodeLease.NAMESPACE).withName(nodeName).delete();
  }

  private NodeOptions options() {
    return NodeOptions.defaults(nodeName, "10.1.2.3", rootDir)
        .withFrequencies(FAST, Duration.ofMinutes(5));
  }

  private ApiNodeStatusManager manager(
      NodeOptions options, Time time, Supplier<String> runtimeVersion, Supplier<Health> readiness) {
    return manager(options, time, runtimeVersion, readiness, NodeResources.NONE);
  }

  private ApiNodeStatusManager manager(
      NodeOptions options,
      Time time,
      Supplier<String> runtimeVersion,
      Supplier<Health> readiness,
      NodeResources resources) {
    return manager(
        HeartbeatClient.create(config, Duration.ofSeconds(5)),
        options,
        time,
        new NodeStatusManager.Sources(machine, runtimeVersion, images::get, readiness, resources));
  }

  /** A ready manager whose heartbeat client's requests also go through {@code recording}. */
  private ApiNodeStatusManager recorded(NodeOptions options, Time time, Interceptor recording) {
    return manager(
        HeartbeatClient.create(
            config,
            options,
            b ->
                b.withHttpClientBuilderConsumer(
                    h -> h.addOrReplaceInterceptor("recording", recording))),
        options,
        time,
        new NodeStatusManager.Sources(
            machine, () -> "docker://20.10.24", images::get, () -> Health.OK, NodeResources.NONE));
  }

  private ApiNodeStatusManager manager(
      KubernetesClient heartbeat,
      NodeOptions options,
      Time time,
      NodeStatusManager.Sources sources) {
    clients.add(heartbeat);
    ApiNodeStatusManager m = new ApiNodeStatusManager(options, heartbeat, time, sources, recorder);
    managers.add(m);
    return m;
  }

  private ApiNodeStatusManager started(NodeOptions options, Supplier<Health> readiness) {
    ApiNodeStatusManager m = manager(options, Time.system(), () -> "docker://20.10.24", readiness);
    m.start();
    return m;
  }

  private Node node() {
    return admin.nodes().withName(nodeName).get();
  }

  /**
   * Waits until the API server's watch cache, which each round reads the Node from, has it at
   * {@code rv}: with a fake clock the next round comes at once, not 10 s later.
   */
  private void awaitCached(String rv) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                rv.equals(
                    ApiRequests.getCached(admin, "nodes", nodeName, Node.class)
                        .getMetadata()
                        .getResourceVersion()));
  }

  private NodeCondition condition(Node node, String type) {
    return NodeStatuses.find(node.getStatus().getConditions(), type);
  }

  private Node awaitReady(String status) {
    AtomicReference<Node> seen = new AtomicReference<>();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              Node n = node();
              seen.set(n);
              return n != null
                  && n.getStatus() != null
                  && condition(n, "Ready") != null
                  && status.equals(condition(n, "Ready").getStatus());
            });
    return seen.get();
  }

  private Lease lease() {
    return admin.leases().inNamespace(NodeLease.NAMESPACE).withName(nodeName).get();
  }

  @Test
  void registersTheNodeWithLabelsTaintsCapacityAddressesInfoAndReady() {
    NodeOptions options =
        new NodeOptions(
            nodeName,
            "10.1.2.3",
            "host-x",
            NodeOptions.Registration.of(
                NodeFlags.parseLabels("node.kubernetes.io/pool=blue,example.com/team=a"),
                NodeFlags.parseTaints("dedicated=gpu:NoSchedule,spot:PreferNoSchedule")),
            new NodeOptions.Capacity(42, rootDir),
            10250,
            "v1.20.2",
            new NodeOptions.Heartbeat(FAST, Duration.ofMinutes(5), 40));
    ApiNodeStatusManager m = started(options, () -> Health.OK);

    Node node = awaitReady("True");

    assertThat(node.getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", "host-x")
        .containsEntry("kubernetes.io/os", "linux")
        .containsEntry("kubernetes.io/arch", machine.system().architecture())
        .containsEntry("beta.kubernetes.io/os", "linux")
        .containsEntry("beta.kubernetes.io/arch", machine.system().architecture())
        .containsEntry("node.kubernetes.io/pool", "blue")
        .containsEntry("example.com/team", "a");
    // The TaintNodesByCondition admission plugin adds node.kubernetes.io/not-ready on create.
    assertThat(node.getSpec().getTaints())
        .extracting(
            t ->
                t.getKey() + "=" + (t.getValue() == null ? "" : t.getValue()) + ":" + t.getEffect())
        .contains("dedicated=gpu:NoSchedule", "spot=:PreferNoSchedule");

    var status = node.getStatus();
    assertThat(status.getCapacity().get("cpu"))
        .isEqualTo(new Quantity(Integer.toString(machine.cpus())));
    assertThat(Quantity.getAmountInBytes(status.getCapacity().get("memory")).longValueExact())
        .isEqualTo(machine.memoryBytes());
    assertThat(
            Quantity.getAmountInBytes(status.getCapacity().get("ephemeral-storage"))
                .longValueExact())
        .isEqualTo(machine.ephemeralStorageBytes());
    assertThat(status.getCapacity().get("pods")).isEqualTo(new Quantity("42"));
    machine
        .hugePages()
        .forEach(
            (size, bytes) ->
                assertThat(
                        Quantity.getAmountInBytes(status.getCapacity().get("hugepages-" + size))
                            .longValueExact())
                    .isEqualTo(bytes));
    assertThat(node.getMetadata().getAnnotations())
        .containsEntry("volumes.kubernetes.io/controller-managed-attach-detach", "true");
    assertThat(status.getAllocatable()).isEqualTo(status.getCapacity());
    assertThat(status.getAddresses())
        .extracting(a -> a.getType() + "=" + a.getAddress())
        .containsExactly("InternalIP=10.1.2.3", "Hostname=host-x");
    var info = status.getNodeInfo();
    assertThat(info.getKernelVersion()).isEqualTo(machine.system().kernelVersion());
    assertThat(info.getOsImage()).isEqualTo(machine.system().osImage());
    assertThat(info.getContainerRuntimeVersion()).isEqualTo("docker://20.10.24");
    assertThat(info.getKubeletVersion()).isEqualTo("v1.20.2");
    assertThat(info.getKubeProxyVersion()).isEqualTo("v1.20.2");
    assertThat(info.getOperatingSystem()).isEqualTo("linux");
    assertThat(info.getArchitecture()).isEqualTo(machine.system().architecture());
    assertThat(info.getMachineID()).isEqualTo(machine.system().machineId());
    assertThat(info.getSystemUUID()).isEqualTo(machine.system().systemUuid());
    assertThat(info.getBootID()).isEqualTo(machine.system().bootId());
    assertThat(status.getDaemonEndpoints().getKubeletEndpoint().getPort()).isEqualTo(10250);

    NodeCondition ready = condition(node, "Ready");
    assertThat(ready.getReason()).isEqualTo("KubeletReady");
    assertThat(ready.getMessage()).isEqualTo("kubelet is posting ready status");
    assertThat(node.getStatus().getConditions())
        .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getReason)
        .contains(
            tuple("MemoryPressure", "False", "KubeletHasSufficientMemory"),
            tuple("DiskPressure", "False", "KubeletHasNoDiskPressure"),
            tuple("PIDPressure", "False", "KubeletHasSufficientPID"));

    await().atMost(WAIT).until(() -> recorder.reasons().size() >= 4);
    assertThat(recorder.events())
        .extracting(e -> e.type() + " " + e.reason() + ": " + e.message())
        .containsExactly(
            "Normal NodeHasSufficientMemory: Node "
                + nodeName
                + " status is now: NodeHasSufficientMemory",
            "Normal NodeHasNoDiskPressure: Node "
                + nodeName
                + " status is now: NodeHasNoDiskPressure",
            "Normal NodeHasSufficientPID: Node "
                + nodeName
                + " status is now: NodeHasSufficientPID",
            "Normal NodeReady: Node " + nodeName + " status is now: NodeReady");
    assertThat(recorder.events())
        .allSatisfy(e -> assertThat(e.involved()).isEqualTo(Refs.node(nodeName)));
    assertThat(recorder.events()).allSatisfy(e -> assertThat(e.type()).isEqualTo(EventType.Normal));

    assertThat(m.lastReported()).isPresent();
    assertThat(m.lastReported().get().getMetadata().getUid())
        .isEqualTo(node.getMetadata().getUid());
    await().atMost(WAIT).until(() -> m.healthy().ok());
  }

  @Test
  void theLeaseIsCreatedWithTheNodeAsOwnerAndRenewed() {
    started(options(), () -> Health.OK);
    Node node = awaitReady("True");

    await().atMost(WAIT).until(() -> lease() != null);
    Lease first = lease();
    assertThat(first.getSpec().getHolderIdentity()).isEqualTo(nodeName);
    assertThat(first.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
    assertThat(first.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            (OwnerReference o) -> {
              assertThat(o.getApiVersion()).isEqualTo("v1");
              assertThat(o.getKind()).isEqualTo("Node");
              assertThat(o.getName()).isEqualTo(nodeName);
              assertThat(o.getUid()).isEqualTo(node.getMetadata().getUid());
            });
    // MicroTime on the wire: RFC 3339 with microseconds, in UTC.
    String raw =
        admin.raw(
            admin.getMasterUrl()
                + "apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"
                + nodeName);
    assertThat(raw)
        .containsPattern("\"renewTime\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z\"");
    assertThat(Duration.between(first.getSpec().getRenewTime().toInstant(), Instant.now()).abs())
        .isLessThan(Duration.ofSeconds(30));

    await()
        .atMost(WAIT)
        .until(
            () ->
                lease()
                    .getSpec()
                    .getRenewTime()
                    .isAfter(first.getSpec().getRenewTime().plus(Duration.ofMillis(300))));
  }

  @Test
  void theNodeTurnsNotReadyWithTheHealthMessageAndBack() {
    AtomicReference<Health> health = new AtomicReference<>(Health.OK);
    started(options(), health::get);
    Node ready = awaitReady("True");

    String message = "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s";
    health.set(Health.failing(message));
    Node notReady = awaitReady("False");
    NodeCondition c = condition(notReady, "Ready");
    assertThat(c.getReason()).isEqualTo("KubeletNotReady");
    assertThat(c.getMessage()).isEqualTo(message);
    assertThat(Instant.parse(c.getLastTransitionTime()))
        .isAfterOrEqualTo(Instant.parse(condition(ready, "Ready").getLastTransitionTime()));
    await().atMost(WAIT).until(() -> recorder.reasons().contains("NodeNotReady"));

    health.set(Health.OK);
    awaitReady("True");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(recorder.reasons()).endsWith("NodeReady", "NodeNotReady", "NodeReady"));
  }

  @Test
  void aStartingAgentRegistersOnceReadyWithoutANodeNotReadyFirst() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    AtomicReference<Health> health = new AtomicReference<>(Health.failing("jkubelet is starting"));
    ApiNodeStatusManager m =
        manager(
            options(),
            new Time(clock, new RecordingSleeper(clock), schedulers),
            () -> "docker://20.10.24",
            health::get);

    m.start();
    schedulers.advance(Duration.ofSeconds(1));
    assertThat(node()).as("not registered while starting").isNull();

    health.set(Health.OK);
    schedulers.advance(ApiNodeStatusManager.STARTUP_POLL);
    assertThat(condition(node(), "Ready").getStatus()).isEqualTo("True");
    assertThat(recorder.reasons()).contains("NodeReady").doesNotContain("NodeNotReady");
  }

  @Test
  void aPressureConditionReachesTheNodeWithinASecondNotAtTheNextUpdate() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    AtomicReference<Set<String>> pressure = new AtomicReference<>(Set.of());
    ApiNodeStatusManager m =
        manager(
            NodeOptions.defaults(nodeName, "10.1.2.3", rootDir)
                .withFrequencies(Duration.ofSeconds(10), Duration.ofMinutes(5)),
            new Time(clock, new RecordingSleeper(clock), schedulers),
            () -> "docker://20.10.24",
            () -> Health.OK,
            new NodeResources(Map.of(), pressure::get));
    m.start();
    schedulers.advance(Duration.ZERO);
    assertThat(condition(node(), "MemoryPressure").getStatus()).isEqualTo("False");

    pressure.set(Set.of(NodeResources.MEMORY_PRESSURE));
    schedulers.advance(ApiNodeStatusManager.CONDITION_POLL);
    NodeCondition under = condition(node(), "MemoryPressure");
    assertThat(under.getStatus()).as("one second later, not ten").isEqualTo("True");
    assertThat(under.getReason()).isEqualTo("KubeletHasInsufficientMemory");
    assertThat(recorder.reasons()).contains("NodeHasInsufficientMemory");

    pressure.set(Set.of());
    schedulers.advance(ApiNodeStatusManager.CONDITION_POLL);
    assertThat(condition(node(), "MemoryPressure").getStatus()).isEqualTo("False");
    assertThat(recorder.reasons()).endsWith("NodeHasSufficientMemory");
  }

  @Test
  void anAgentStillNotReadyAfterTheGraceRegistersNotReady() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    ApiNodeStatusManager m =
        manager(
            options(),
            new Time(clock, new RecordingSleeper(clock), schedulers),
            () -> "docker://20.10.24",
            () -> Health.failing("container runtime is down"));

    m.start();
    schedulers.advance(ApiNodeStatusManager.STARTUP_GRACE);
    NodeCondition ready = condition(node(), "Ready");
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getMessage()).isEqualTo("container runtime is down");
    assertThat(recorder.reasons()).contains("NodeNotReady");
  }

  @Test
  void theNodeListsItsImagesLargestFirstAndFollowsChanges() {
    started(options(), () -> Health.OK);
    awaitReady("True");
    assertThat(node().getStatus().getImages())
        .extracting(i -> i.getNames().get(0) + "=" + i.getSizeBytes())
        .containsExactly(
            "nginx:1.14-alpine=16000000", "busybox:1.29=1200000", "k8s.gcr.io/pause:3.2=680000");

    images.set(List.of(new ImageSummary(List.of("httpd:2.4.38-alpine"), 5_000_000)));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getImages())
                    .extracting(i -> i.getNames().get(0))
                    .containsExactly("httpd:2.4.38-alpine"));
  }

  @Test
  void aDeletedNodeIsRegisteredAgain() {
    started(options(), () -> Health.OK);
    Node first = awaitReady("True");
    await().atMost(WAIT).until(() -> lease() != null);

    TestApiServer.deleteNode(admin, nodeName);

    await()
        .atMost(WAIT)
        .until(
            () -> {
              Node n = node();
              return n != null && !n.getMetadata().getUid().equals(first.getMetadata().getUid());
            });
    Node again = awaitReady("True");
    assertThat(again.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("docker://20.10.24");
    // The Lease follows the new Node (the garbage collector may delete the old one first).
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Lease l = lease();
              return l != null
                  && l.getMetadata()
                      .getOwnerReferences()
                      .get(0)
                      .getUid()
                      .equals(again.getMetadata().getUid());
            });
  }

  /**
   * A restart, the usual registration: the agent finds its Node with one read and reports its
   * status at once, from what it read, before the Lease; no create is refused on the way.
   */
  @Test
  void aRestartTakesItsNodeOverWithOneReadAndReportsTheStatusFirst() {
    started(options(), () -> Health.OK);
    awaitReady("True");
    await().atMost(WAIT).until(() -> lease() != null);
    managers.forEach(NodeStatusManager::stop);

    List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
    Interceptor recording =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            requests.add(request.method() + " " + request.uri().getPath());
          }
        };
    ApiNodeStatusManager again = recorded(options(), Time.system(), recording);
    again.start();

    await().atMost(WAIT).until(() -> requests.stream().anyMatch(r -> r.startsWith("PUT")));
    List<String> round = List.copyOf(requests);
    String node = "/api/v1/nodes/" + nodeName;
    assertThat(round).doesNotContain("POST /api/v1/nodes");
    assertThat(round.subList(0, 2)).containsExactly("GET " + node, "PATCH " + node + "/status");
  }

  /**
   * {@code --register-node=false}: no Node and no Lease while nobody creates the Node, the agent
   * healthy all along; once an admin creates it, its status and then its Lease are written at the
   * next round, and neither the agent's labels nor its taints are set.
   */
  @Test
  void withoutRegistrationNoNodeIsCreatedAndOneMadeByAnAdminIsTakenUp() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    NodeOptions options =
        NodeOptions.defaults(nodeName, "10.1.2.3", rootDir)
            .withLabelsAndTaints(
                Map.of("node.kubernetes.io/pool", "blue"),
                NodeFlags.parseTaints("new=t:NoSchedule"))
            .withoutRegistration();
    ApiNodeStatusManager m =
        manager(
            options,
            new Time(clock, new RecordingSleeper(clock), schedulers),
            () -> "docker://20.10.24",
            () -> Health.OK);

    m.start();
    schedulers.runDue();
    for (int i = 0; i < 6; i++) {
      schedulers.advance(Duration.ofSeconds(10));
    }
    assertThat(node()).as("no Node is created").isNull();
    assertThat(lease()).as("no Lease without its Node").isNull();
    assertThat(m.lastReported()).isEmpty();
    assertThat(m.healthy().ok()).as(m.healthy().toString()).isTrue();

    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(nodeName)
                .withLabels(Map.of("made-by", "admin"))
                .endMetadata()
                .build())
        .create();
    schedulers.advance(Duration.ofSeconds(10));

    Node node = node();
    assertThat(condition(node, "Ready").getStatus()).isEqualTo("True");
    assertThat(node.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("docker://20.10.24");
    assertThat(node.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("made-by", "admin"));
    assertThat(node.getSpec().getTaints()).isNullOrEmpty();
    assertThat(lease().getMetadata().getOwnerReferences())
        .singleElement()
        .extracting(OwnerReference::getUid)
        .isEqualTo(node.getMetadata().getUid());
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(clock.instant());

    // Deleted again: not registered again; the Lease is left to the garbage collector.
    TestApiServer.deleteNode(admin, nodeName);
    await().atMost(WAIT).until(() -> node() == null);
    for (int i = 0; i < 3; i++) {
      schedulers.advance(Duration.ofSeconds(10));
    }
    assertThat(node()).isNull();
  }

  @Test
  void anExistingNodeIsTakenOverWithoutRemovingLabelsOrAddingTaints() {
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(nodeName)
                .withLabels(Map.of("kubernetes.io/hostname", "old-name", "keep", "me"))
                .endMetadata()
                .withNewSpec()
                .addNewTaint()
                .withKey("pre")
                .withValue("existing")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .build())
        .create();
    NodeOptions options =
        options()
            .withLabelsAndTaints(
                Map.of("node.kubernetes.io/pool", "blue"),
                NodeFlags.parseTaints("new=t:NoSchedule"));
    started(options, () -> Health.OK);

    Node node = awaitReady("True");
    assertThat(node.getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", nodeName)
        .containsEntry("keep", "me")
        .containsEntry("node.kubernetes.io/pool", "blue")
        .containsEntry("kubernetes.io/os", "linux");
    assertThat(node.getMetadata().getAnnotations())
        .containsEntry("volumes.kubernetes.io/controller-managed-attach-detach", "true");
    assertThat(node.getSpec().getTaints())
        .extracting(t -> t.getKey())
        .contains("pre")
        .doesNotContain("new");
    await().atMost(WAIT).until(() -> recorder.reasons().size() >= 4);
    assertThat(recorder.reasons())
        .containsExactly(
            "NodeHasSufficientMemory",
            "NodeHasNoDiskPressure",
            "NodeHasSufficientPID",
            "NodeReady");
  }

  /**
   * {@code nodeStatusUpdateFrequency} 3 s, {@code nodeStatusReportFrequency} 30 s and {@code
   * nodeLeaseDurationSeconds} 20: the status is computed every 3 s and written when it changes or
   * 30 s after the last report; the Lease says 20 s and is renewed every 5 s (a quarter of it, as
   * upstream's Lease controller), whatever the status's frequency.
   */
  @Test
  void theFrequenciesAndTheLeaseDurationAreHonoured() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    AtomicReference<String> version = new AtomicReference<>("docker://20.10.24");
    NodeOptions d = NodeOptions.defaults(nodeName, "10.1.2.3", rootDir);
    NodeOptions options =
        new NodeOptions(
            d.nodeName(),
            d.nodeIp(),
            d.hostname(),
            d.registration(),
            d.capacity(),
            d.kubeletPort(),
            d.kubeletVersion(),
            new NodeOptions.Heartbeat(Duration.ofSeconds(3), Duration.ofSeconds(30), 20));
    ApiNodeStatusManager m =
        manager(
            options,
            new Time(clock, new RecordingSleeper(clock), schedulers),
            version::get,
            () -> Health.OK);
    assertThat(m.leaseRenewInterval()).isEqualTo(Duration.ofSeconds(5));
    Instant t0 = clock.instant();

    m.start();
    schedulers.runDue();
    assertThat(lease().getSpec().getLeaseDurationSeconds()).isEqualTo(20);
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(t0);
    String rv = node().getMetadata().getResourceVersion();

    schedulers.advance(Duration.ofSeconds(3));
    assertThat(lease().getSpec().getRenewTime().toInstant()).as("not due at 3s").isEqualTo(t0);
    schedulers.advance(Duration.ofSeconds(2));
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(5));
    assertThat(node().getMetadata().getResourceVersion()).as("unchanged").isEqualTo(rv);

    version.set("docker://20.10.25");
    schedulers.advance(Duration.ofSeconds(1)); // 6s: a status round
    Node changed = node();
    assertThat(changed.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("docker://20.10.25");
    rv = changed.getMetadata().getResourceVersion();

    schedulers.advance(Duration.ofSeconds(27)); // 33s: 27s after the last report
    assertThat(node().getMetadata().getResourceVersion()).isEqualTo(rv);
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(30));
    schedulers.advance(Duration.ofSeconds(3)); // 36s: 30s after it
    Node reported = node();
    assertThat(reported.getMetadata().getResourceVersion()).isNotEqualTo(rv);
    assertThat(condition(reported, "Ready").getLastHeartbeatTime())
        .isEqualTo(NodeStatuses.time(t0.plusSeconds(36)));
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(35));
  }

  /**
   * As upstream's first try of each status update, a round reads the Node from the API server's
   * watch cache ({@code resourceVersion=0}), which costs no read of etcd.
   */
  @Test
  void eachRoundReadsTheNodeFromTheApiServersCache() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    NodeOptions options = NodeOptions.defaults(nodeName, "10.1.2.3", rootDir);
    String path = "/api/v1/nodes/" + nodeName;
    List<String> reads = java.util.Collections.synchronizedList(new ArrayList<>());
    Interceptor recording =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            if (request.method().equals("GET") && request.uri().getPath().equals(path)) {
              reads.add(String.valueOf(request.uri().getQuery()));
            }
          }
        };
    ApiNodeStatusManager m =
        recorded(options, new Time(clock, new RecordingSleeper(clock), schedulers), recording);
    m.start();
    schedulers.runDue(); // registers
    awaitCached(node().getMetadata().getResourceVersion());
    reads.clear();

    schedulers.advance(Duration.ofSeconds(10));
    schedulers.advance(Duration.ofSeconds(10));

    assertThat(reads).containsExactly("resourceVersion=0", "resourceVersion=0");
  }

  @Test
  void theStatusIsPatchedOnlyWhenItChangesOrEveryReportFrequency() {
    FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    FakeSchedulers schedulers = new FakeSchedulers(clock);
    AtomicReference<String> version = new AtomicReference<>("docker://20.10.24");
    ApiNodeStatusManager m =
        manager(
            NodeOptions.defaults(nodeName, "10.1.2.3", rootDir),
            new Time(clock, new RecordingSleeper(clock), schedulers),
            () -> {
              String v = version.get();
              if (v == null) {
                throw new IllegalStateException("Cannot connect to the Docker daemon");
              }
              return v;
            },
            () -> Health.OK);

    m.start();
    schedulers.runDue(); // registers, renews the Lease and syncs the status
    assertThat(schedulers.pending()).as("the next round, in 10s").isEqualTo(1);
    Node registered = node();
    String t0 = condition(registered, "Ready").getLastHeartbeatTime();
    String rv = registered.getMetadata().getResourceVersion();
    awaitCached(rv);

    schedulers.advance(Duration.ofSeconds(10));
    assertThat(node().getMetadata().getResourceVersion()).as("unchanged: no PATCH").isEqualTo(rv);

    // Another controller's condition survives our patches (strategic merge by type).
    admin
        .nodes()
        .withName(nodeName)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"NetworkUnavailable\",\"status\":\"False\","
                + "\"reason\":\"RouteCreated\"}]}}");
    rv = node().getMetadata().getResourceVersion();

    version.set("docker://20.10.25");
    schedulers.advance(Duration.ofSeconds(10));
    Node changed = node();
    assertThat(changed.getMetadata().getResourceVersion()).isNotEqualTo(rv);
    assertThat(changed.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("docker://20.10.25");
    assertThat(condition(changed, "Ready").getLastHeartbeatTime())
        .isEqualTo(NodeStatuses.time(clock.instant()));
    assertThat(condition(changed, "Ready").getLastTransitionTime()).isEqualTo(t0);
    assertThat(condition(changed, "NetworkUnavailable")).isNotNull();
    rv = changed.getMetadata().getResourceVersion();
    awaitCached(rv);

    // The runtime is down: the last known version is kept, so nothing changed.
    version.set(null);
    schedulers.advance(Duration.ofSeconds(10));
    assertThat(node().getMetadata().getResourceVersion()).isEqualTo(rv);

    schedulers.advance(Duration.ofSeconds(4 * 60 + 49)); // a round every 10s
    assertThat(node().getMetadata().getResourceVersion())
        .as("4m59s after the last report")
        .isEqualTo(rv);

    schedulers.advance(Duration.ofSeconds(1));
    Node reported = node();
    assertThat(reported.getMetadata().getResourceVersion())
        .as("5m after: reported")
        .isNotEqualTo(rv);
    assertThat(condition(reported, "Ready").getLastHeartbeatTime())
        .isEqualTo(NodeStatuses.time(clock.instant()));
    assertThat(condition(reported, "Ready").getLastTransitionTime()).isEqualTo(t0);
    assertThat(reported.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("docker://20.10.25");
    assertThat(m.lastReported().orElseThrow().getStatus().getConditions())
        .allSatisfy(
            c ->
                assertThat(c.getLastHeartbeatTime()).isEqualTo(NodeStatuses.time(clock.instant())));

    // Every round renewed the Lease at the fake time.
    assertThat(lease().getSpec().getRenewTime().toInstant()).isEqualTo(clock.instant());
  }

  @Test
  void anExtendedResourceAddedToTheCapacityBecomesAllocatableAndLeavesWithIt() {
    started(options(), () -> Health.OK);
    awaitReady("True");
    // As the scheduler's preemption specs and device-less operators add one.
    patchStatus(
        "[{\"op\":\"add\",\"path\":\"/status/capacity/example.com~1dongle\",\"value\":\"5\"}]");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable())
                    .containsEntry("example.com/dongle", new Quantity("5")));
    assertThat(node().getStatus().getCapacity())
        .containsEntry("example.com/dongle", new Quantity("5"));

    patchStatus("[{\"op\":\"remove\",\"path\":\"/status/capacity/example.com~1dongle\"}]");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(node().getStatus().getAllocatable())
                    .doesNotContainKey("example.com/dongle"));
    assertThat(node().getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
  }

  /** A JSON patch of the Node's status, as another controller would send it. */
  private void patchStatus(String jsonPatch) {
    admin
        .nodes()
        .withName(nodeName)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), jsonPatch);
  }
}
