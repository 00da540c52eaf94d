package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Named.named;

import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.ImageSummary;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.Lifecycle.Health;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeStatusesTest {
  static final NodeInfo MACHINE =
      new NodeInfo(
          4,
          16374784L * 1024,
          100L * 1024 * 1024 * 1024,
          Map.of("2Mi", 4L * 2 * 1024 * 1024, "1Gi", 0L),
          new NodeInfo.SystemInfo(
              "6.1.0-18-amd64",
              "Debian GNU/Linux 12 (bookworm)",
              "linux",
              "amd64",
              "machine-1",
              "uuid-1",
              "boot-1"));
  static final NodeOptions OPTIONS =
      NodeOptions.defaults("node-a", "10.0.0.7", Path.of("/var/lib/kubelet"));
  static final String DOCKER = "docker://20.10.24";

  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00.750Z"));

  private NodeStatuses.Desired desired(Health health, List<NodeCondition> previous) {
    return NodeStatuses.desired(
        OPTIONS, MACHINE, DOCKER, health, previous, clock.instant(), Map.of(), Set.of());
  }

  private static NodeCondition condition(NodeStatus s, String type) {
    return NodeStatuses.find(s.getConditions(), type);
  }

  @Test
  void aNewNodeHasFourConditionsWithUpstreamReasonsAndEvents() {
    NodeStatuses.Desired d = desired(Health.OK, null);

    assertThat(d.status().getConditions())
        .extracting(
            NodeCondition::getType,
            NodeCondition::getStatus,
            NodeCondition::getReason,
            NodeCondition::getMessage)
        .containsExactly(
            tuple(
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available"),
            tuple(
                "DiskPressure",
                "False",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure"),
            tuple(
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available"),
            tuple("Ready", "True", "KubeletReady", "kubelet is posting ready status"));
    assertThat(d.status().getConditions())
        .allSatisfy(
            c -> {
              assertThat(c.getLastHeartbeatTime()).isEqualTo("2026-01-01T00:00:00Z");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
            });
    assertThat(d.events())
        .containsExactly(
            Reasons.NODE_HAS_SUFFICIENT_MEMORY,
            Reasons.NODE_HAS_NO_DISK_PRESSURE,
            Reasons.NODE_HAS_SUFFICIENT_PID,
            Reasons.NODE_READY);
  }

  @Test
  void transitionTimesMoveOnlyWhenTheStatusChanges() {
    NodeStatus first = desired(Health.OK, null).status();

    clock.step(Duration.ofSeconds(10));
    NodeStatuses.Desired same = desired(Health.OK, first.getConditions());
    assertThat(same.events()).isEmpty();
    assertThat(condition(same.status(), "Ready").getLastHeartbeatTime())
        .isEqualTo("2026-01-01T00:00:10Z");
    assertThat(condition(same.status(), "Ready").getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");

    clock.step(Duration.ofSeconds(10));
    NodeStatuses.Desired down =
        desired(
            Health.failing("PLEG is not healthy: pleg was last seen active 3m5s ago"),
            same.status().getConditions());
    NodeCondition ready = condition(down.status(), "Ready");
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("KubeletNotReady");
    assertThat(ready.getMessage())
        .isEqualTo("PLEG is not healthy: pleg was last seen active 3m5s ago");
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:20Z");
    assertThat(down.events()).containsExactly(Reasons.NODE_NOT_READY);
    // The pressure conditions did not change.
    assertThat(condition(down.status(), "MemoryPressure").getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");

    clock.step(Duration.ofSeconds(10));
    NodeStatuses.Desired stillDown =
        desired(Health.failing("container runtime is down: EOF"), down.status().getConditions());
    assertThat(condition(stillDown.status(), "Ready").getLastTransitionTime())
        .as("a new message is not a transition")
        .isEqualTo("2026-01-01T00:00:20Z");
    assertThat(stillDown.events()).isEmpty();

    clock.step(Duration.ofSeconds(10));
    NodeStatuses.Desired up = desired(Health.OK, stillDown.status().getConditions());
    assertThat(condition(up.status(), "Ready").getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:40Z");
    assertThat(up.events()).containsExactly(Reasons.NODE_READY);
  }

  @Test
  void aConditionAnotherControllerChangedTransitionsBack() {
    NodeStatus first = desired(Health.OK, null).status();
    // The node lifecycle controller marks the node Unknown when heartbeats stop.
    List<NodeCondition> marked =
        first.getConditions().stream()
            .map(
                c ->
                    c.getType().equals("Ready")
                        ? new NodeConditionBuilder(c)
                            .withStatus("Unknown")
                            .withReason("NodeStatusUnknown")
                            .withLastTransitionTime("2026-01-01T00:05:00Z")
                            .build()
                        : c)
            .toList();
    clock.step(Duration.ofMinutes(6));
    NodeStatuses.Desired d = desired(Health.OK, marked);
    assertThat(condition(d.status(), "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(d.status(), "Ready").getLastTransitionTime())
        .isEqualTo("2026-01-01T00:06:00Z");
    assertThat(d.events()).containsExactly(Reasons.NODE_READY);
  }

  @Test
  void statusCarriesCapacityAddressesInfoAndEndpoint() {
    NodeStatus s = desired(Health.OK, null).status();

    assertThat(s.getCapacity())
        .containsOnlyKeys(
            "cpu", "memory", "ephemeral-storage", "pods", "hugepages-2Mi", "hugepages-1Gi")
        .containsEntry("cpu", new Quantity("4"))
        .containsEntry("memory", new Quantity("15991Mi"))
        .containsEntry("ephemeral-storage", new Quantity("100Gi"))
        .containsEntry("pods", new Quantity("110"));
    // Nothing reserved: allocatable is the capacity, but for memory less its hugepages (upstream).
    assertThat(s.getAllocatable())
        .containsOnlyKeys(s.getCapacity().keySet())
        .containsEntry("memory", new Quantity("15983Mi"))
        .containsEntry("cpu", new Quantity("4"))
        .containsEntry("ephemeral-storage", new Quantity("100Gi"));
    assertThat(s.getAddresses())
        .extracting(a -> a.getType() + "=" + a.getAddress())
        .containsExactly("InternalIP=10.0.0.7", "Hostname=node-a");
    assertThat(s.getNodeInfo().getContainerRuntimeVersion()).isEqualTo(DOCKER);
    assertThat(s.getNodeInfo().getKubeletVersion()).isEqualTo("v1.20.2");
    assertThat(s.getNodeInfo().getKubeProxyVersion()).isEqualTo("v1.20.2");
    assertThat(s.getNodeInfo().getMachineID()).isEqualTo("machine-1");
    assertThat(s.getNodeInfo().getSystemUUID()).isEqualTo("uuid-1");
    assertThat(s.getNodeInfo().getBootID()).isEqualTo("boot-1");
    assertThat(s.getNodeInfo().getOperatingSystem()).isEqualTo("linux");
    assertThat(s.getNodeInfo().getArchitecture()).isEqualTo("amd64");
    assertThat(s.getDaemonEndpoints().getKubeletEndpoint().getPort()).isEqualTo(10250);
  }

  @Test
  void labelsAreTheDefaultsThenTheExtraOnes() {
    NodeOptions o =
        OPTIONS.withLabelsAndTaints(Map.of("zone", "a", "kubernetes.io/hostname", "h2"), List.of());
    assertThat(NodeStatuses.labels(o, MACHINE))
        .containsOnly(
            Map.entry("kubernetes.io/hostname", "h2"),
            Map.entry("kubernetes.io/os", "linux"),
            Map.entry("kubernetes.io/arch", "amd64"),
            Map.entry("beta.kubernetes.io/os", "linux"),
            Map.entry("beta.kubernetes.io/arch", "amd64"),
            Map.entry("zone", "a"));
  }

  @Test
  void theInitialNodeCarriesTheTaints() {
    NodeOptions o = OPTIONS.withLabelsAndTaints(Map.of(), NodeFlags.parseTaints("a=b:NoSchedule"));
    var node = NodeStatuses.initialNode(o, MACHINE, desired(Health.OK, null).status());
    assertThat(node.getMetadata().getName()).isEqualTo("node-a");
    assertThat(node.getSpec().getTaints())
        .extracting(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect())
        .containsExactly("a=b:NoSchedule");
    assertThat(node.getStatus().getConditions()).hasSize(4);
    assertThat(node.getMetadata().getAnnotations())
        .containsEntry("volumes.kubernetes.io/controller-managed-attach-detach", "true");
  }

  @Test
  void imagesAreListedLargestFirstAtMostFiftyWithAtMostFiveNamesEach() {
    List<ImageSummary> many = new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      many.add(new ImageSummary(List.of("img" + i + ":1"), 1000 + i));
    }
    many.add(new ImageSummary(List.of(), 1_000_000)); // dangling: no name
    many.add(new ImageSummary(List.of("a", "b", "c", "d", "e", "f", "g"), 999_999));

    var images = NodeStatuses.images(many);

    assertThat(images).hasSize(50);
    assertThat(images.get(0).getNames()).containsExactly("a", "b", "c", "d", "e");
    assertThat(images.get(1).getNames()).containsExactly("img59:1");
    assertThat(images)
        .extracting(i -> i.getSizeBytes())
        .isSortedAccordingTo((x, y) -> y.compareTo(x));
  }

  @Test
  void capacityAndAllocatableCarryEachHugePageSize() {
    var status = desired(Health.OK, null).status();
    assertThat(status.getCapacity())
        .containsEntry("hugepages-2Mi", new Quantity("8Mi"))
        .containsEntry("hugepages-1Gi", new Quantity("0"));
    assertThat(status.getAllocatable())
        .containsEntry("hugepages-2Mi", new Quantity("8Mi"))
        .containsEntry("hugepages-1Gi", new Quantity("0"));
  }

  // --- whether to report ---

  static Stream<Arguments> reportDecisions() {
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    Duration five = Duration.ofMinutes(5);
    return Stream.of(
        Arguments.of(named("nothing reported yet", false), null, t0, five, true),
        Arguments.of(named("changed", true), t0, t0.plusSeconds(10), five, true),
        Arguments.of(named("unchanged, 10s after", false), t0, t0.plusSeconds(10), five, false),
        Arguments.of(
            named("unchanged, just before 5m", false), t0, t0.plusSeconds(299), five, false),
        Arguments.of(named("unchanged, at 5m", false), t0, t0.plusSeconds(300), five, true),
        Arguments.of(named("unchanged, after 5m", false), t0, t0.plusSeconds(310), five, true));
  }

  @ParameterizedTest
  @MethodSource
  void reportDecisions(
      boolean changed, Instant lastReport, Instant now, Duration frequency, boolean report) {
    assertThat(NodeStatuses.shouldReport(changed, lastReport, now, frequency)).isEqualTo(report);
  }

  /** Changes applied to the status the server holds, and whether that counts as a change. */
  static Stream<Arguments> changes() {
    return Stream.of(
        Arguments.of(named("identical", UnaryOperator.<NodeStatus>identity()), false),
        Arguments.of(
            named(
                "only heartbeats differ",
                edit(
                    s ->
                        s.getConditions()
                            .forEach(c -> c.setLastHeartbeatTime("2025-12-31T23:00:00Z")))),
            false),
        Arguments.of(
            named(
                "quantities in another form",
                edit(
                    s -> {
                      s.getCapacity().put("memory", new Quantity(Long.toString(16374784L * 1024)));
                      s.getAllocatable().put("ephemeral-storage", new Quantity("102400Mi"));
                    })),
            false),
        Arguments.of(
            named(
                "another controller's condition and extended resource",
                edit(
                    s -> {
                      s.getConditions()
                          .add(
                              new NodeConditionBuilder()
                                  .withType("NetworkUnavailable")
                                  .withStatus("False")
                                  .build());
                      s.getCapacity().put("example.com/gpu", new Quantity("2"));
                    })),
            false),
        Arguments.of(
            named(
                "a condition's message",
                edit(s -> s.getConditions().get(3).setMessage("something else"))),
            true),
        Arguments.of(
            named(
                "a condition's transition time",
                edit(s -> s.getConditions().get(0).setLastTransitionTime("2025-01-01T00:00:00Z"))),
            true),
        Arguments.of(named("a missing condition", edit(s -> s.getConditions().remove(2))), true),
        Arguments.of(
            named("capacity", edit(s -> s.getCapacity().put("pods", new Quantity("100")))), true),
        Arguments.of(
            named(
                "runtime version",
                edit(s -> s.getNodeInfo().setContainerRuntimeVersion("docker://19.3.0"))),
            true),
        Arguments.of(
            named(
                "addresses",
                edit(
                    s ->
                        s.setAddresses(
                            List.of(
                                new NodeAddressBuilder()
                                    .withType("InternalIP")
                                    .withAddress("10.0.0.8")
                                    .build(),
                                s.getAddresses().get(1))))),
            true),
        Arguments.of(
            named(
                "kubelet port",
                edit(s -> s.getDaemonEndpoints().getKubeletEndpoint().setPort(10251))),
            true),
        Arguments.of(named("no status at all", (UnaryOperator<NodeStatus>) s -> null), true));
  }

  private static UnaryOperator<NodeStatus> edit(Consumer<NodeStatus> change) {
    return s -> {
      change.accept(s);
      return s;
    };
  }

  @ParameterizedTest
  @MethodSource
  void changes(UnaryOperator<NodeStatus> onServer, boolean changed) {
    NodeStatus reported = desired(Health.OK, null).status();
    NodeStatus server = onServer.apply(new NodeStatusBuilder(reported).build());
    clock.step(Duration.ofSeconds(10));
    NodeStatus now = desired(Health.OK, server == null ? null : reported.getConditions()).status();
    assertThat(NodeStatuses.changed(server, now)).isEqualTo(changed);
  }

  @Test
  void thePatchSetsOnlyTheFieldsThisAgentOwns() {
    NodeStatus s = desired(Health.OK, null).status();
    String json = new KubernetesSerialization().asJson(NodeStatuses.statusPatch(s, List.of()));
    @SuppressWarnings("unchecked")
    Map<String, Object> status =
        (Map<String, Object>)
            new KubernetesSerialization().unmarshal(json, Map.class).get("status");
    assertThat(status)
        .containsOnlyKeys(
            "capacity",
            "allocatable",
            "addresses",
            "nodeInfo",
            "daemonEndpoints",
            "conditions",
            "images");
    assertThat(json)
        .contains("\"memory\":\"15991Mi\"")
        .contains("\"lastHeartbeatTime\":\"2026-01-01T00:00:00Z\"")
        .contains("\"kubeletEndpoint\":{\"Port\":10250}");
  }

  @Test
  void extendedResourcesAreThoseOutsideKubernetesIo() {
    assertThat(ExtendedResources.isExtended("example.com/dongle")).isTrue();
    assertThat(ExtendedResources.isExtended("scheduling.k8s.io/foo")).isTrue();
    assertThat(ExtendedResources.isExtended("cpu")).isFalse();
    assertThat(ExtendedResources.isExtended("hugepages-2Mi")).isFalse();
    assertThat(ExtendedResources.isExtended("kubernetes.io/batch-jobs")).isFalse();
    assertThat(ExtendedResources.isExtended("requests.example.com/dongle")).isFalse();
  }

  @Test
  void anExtendedResourceLeavingTheCapacityIsDeletedFromAllocatableByThePatch() {
    NodeStatus server = new NodeStatusBuilder(desired(Health.OK, null).status()).build();
    server.getAllocatable().put("example.com/dongle", new Quantity("5"));
    NodeStatus now = desired(Health.OK, null).status();
    ExtendedResources.carry(server, now);
    assertThat(now.getAllocatable()).doesNotContainKey("example.com/dongle");
    List<String> stale = ExtendedResources.stale(server);
    assertThat(stale).containsExactly("example.com/dongle");

    String json = new KubernetesSerialization().asJson(NodeStatuses.statusPatch(now, stale));
    assertThat(json).contains("\"example.com/dongle\":null");
  }
}
