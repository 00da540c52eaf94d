package io.jkubelet.agent.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.timeline.PodTimelines;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CNI network plugin against fake CNI plugins: {@code /bin/sh} scripts that log every call
 * (their {@code CNI_*} variables, whether the attachment was already cached, and their stdin) and
 * answer as real plugins do. What is asserted is what an operator sees: the node's network status,
 * the plugins' invocations, the cache files, the pod's IPs and events.
 */
class CniPluginTest {
  private static final String NET = "testnet";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String ALL_VERSIONS =
      "[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]";
  private static final String IP = "10.88.0.5";
  private static final PodRef WEB = new PodRef("uid-web", "web", "shop");

  @TempDir Path tmp;
  private Path bin;
  private Path confDir;
  private Path cacheDir;
  private Path log;

  private final FakeRuntime runtime = new FakeRuntime(new FakeClock());
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final Recorder recorder = new Recorder();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  /** One logged plugin call. */
  record Call(
      String type,
      String command,
      String containerId,
      String netns,
      String ifName,
      String args,
      boolean cacheExisted,
      JsonNode conf) {

    boolean hasPrevResult() {
      return conf.has("prevResult");
    }
  }

  /** An event as recorded. */
  record Event(ObjectReference involved, EventType type, String reason, String message) {}

  /** An {@link EventRecorder} that keeps every event. */
  static final class Recorder implements EventRecorder {
    final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void event(ObjectReference involved, EventType type, String reason, String message) {
      events.add(new Event(involved, type, reason, message));
    }
  }

  @BeforeEach
  void dirs() throws IOException {
    bin = Files.createDirectories(tmp.resolve("bin"));
    confDir = Files.createDirectories(tmp.resolve("net.d"));
    cacheDir = tmp.resolve("cache");
    log = Files.createFile(tmp.resolve("calls.log"));
    plugin("loopback", "echo '{\"cniVersion\":\"0.2.0\"}'");
  }

  @AfterEach
  void shutdown() {
    pool.shutdownNow();
  }

  // --- fake plugins, configurations and the log ---

  private static String result(String version) {
    return "{\"cniVersion\":\""
        + version
        + "\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/proc/1/ns/net\"}],"
        + "\"ips\":[{\"version\":\"4\",\"address\":\""
        + IP
        + "/24\",\"interface\":0}]}";
  }

  private static String answer(String json) {
    return "echo '" + json + "'";
  }

  private void plugin(String type, String onAdd) throws IOException {
    plugin(type, ALL_VERSIONS, onAdd, "exit 0");
  }

  /**
   * Writes a fake plugin: it logs one tab-separated line per call (type, command, container, netns,
   * ifname, args, whether {@code <cache>/results/testnet-<container>-eth0} existed, stdin), answers
   * VERSION with {@code supported} and runs {@code onAdd} / {@code onDel}.
   */
  private void plugin(String type, String supported, String onAdd, String onDel)
      throws IOException {
    String script =
        "#!/bin/sh\n"
            + "in=$(cat)\n"
            + "if ls \""
            + cacheDir.resolve("results")
            + "/"
            + NET
            + "-$CNI_CONTAINERID-eth0\" >/dev/null 2>&1; then cached=yes; else cached=no; fi\n"
            + "printf '%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' '"
            + type
            + "' \"$CNI_COMMAND\" \"$CNI_CONTAINERID\" \"$CNI_NETNS\" \"$CNI_IFNAME\""
            + " \"$CNI_ARGS\" \"$cached\" \"$in\" >> '"
            + log
            + "'\n"
            + "case \"$CNI_COMMAND\" in\n"
            + "  VERSION) echo '{\"cniVersion\":\"1.0.0\",\"supportedVersions\":"
            + supported
            + "}' ;;\n"
            + "  ADD) "
            + onAdd
            + " ;;\n"
            + "  DEL) "
            + onDel
            + " ;;\n"
            + "esac\n"
            + "exit 0\n";
    Path p = bin.resolve(type);
    Files.writeString(p, script);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private void conf(String file, String content) throws IOException {
    Files.writeString(confDir.resolve(file), content);
  }

  private void conflist(String file, String name, String version, String... plugins)
      throws IOException {
    conf(
        file,
        "{\"cniVersion\":\""
            + version
            + "\",\"name\":\""
            + name
            + "\",\"plugins\":["
            + String.join(",", plugins)
            + "]}");
  }

  /** Every call the fake plugins logged, in order. */
  private List<Call> calls() {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(l -> !l.isEmpty())
          .map(
              l -> {
                String[] f = l.split("\t", -1);
                try {
                  return new Call(
                      f[0],
                      f[1],
                      f[2],
                      f[3],
                      f[4],
                      f[5],
                      f[6].equals("yes"),
                      CniExec.JSON.readTree(f[7]));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The ADD and DEL calls: what touched a pod's network. */
  private List<Call> ops() {
    return calls().stream().filter(c -> !c.command().equals("VERSION")).toList();
  }

  private void clearLog() throws IOException {
    Files.writeString(log, "");
  }

  private static List<String> summary(List<Call> calls) {
    return calls.stream().map(c -> c.type() + " " + c.command() + " " + c.ifName()).toList();
  }

  private Path cacheFile(String sandboxId) {
    return cacheDir.resolve("results").resolve(NET + "-" + sandboxId + "-eth0");
  }

  private List<String> cacheFiles() throws IOException {
    Path results = cacheDir.resolve("results");
    if (!Files.isDirectory(results)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(results)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static JsonNode json(String s) throws IOException {
    return CniExec.JSON.readTree(s);
  }

  // --- the objects under test ---

  private CniPlugin newPlugin(Duration timeout) {
    CniExec exec = new CniExec(List.of(bin), timeout);
    return new CniPlugin(
        NetworkSource.confDir(confDir, exec),
        exec,
        new Attachments(cacheDir),
        () -> List.of("10.88.0.0/24"),
        clock,
        schedulers);
  }

  private static SandboxConfig sandbox(PodRef pod) {
    return sandbox(pod, List.of(), Map.of());
  }

  private static SandboxConfig sandbox(
      PodRef pod, List<SandboxConfig.PortMapping> ports, Map<String, String> annotations) {
    return SandboxConfig.builder(pod, "jkubelet/pause:3.2")
        .attempt(0)
        .hostname(pod.name())
        .hostNetwork(false)
        .ports(ports)
        .oomScoreAdj(0)
        .labels(Labels.podLabels(pod, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX))
        .cpuShares(2)
        .security(SandboxConfig.Security.DEFAULT)
        .dns(null)
        .annotations(annotations)
        .pluginNetwork(false)
        .build();
  }

  private static String cniArgs(PodRef pod, String sandboxId) {
    return "IgnoreUnknown=1;K8S_POD_NAMESPACE="
        + pod.namespace()
        + ";K8S_POD_NAME="
        + pod.name()
        + ";K8S_POD_INFRA_CONTAINER_ID="
        + sandboxId;
  }

  private List<String> podIps(NetworkedRuntime rt, PodRef pod) {
    return rt.podStatus(pod).latestSandbox().map(SandboxStatus::ips).orElseThrow();
  }

  /** A bridge that answers ADD with the pod's address, and a portmap that passes it on. */
  private void bridgeAndPortmap(String version) throws IOException {
    plugin("bridge", answer(result(version)));
    plugin("portmap", answer(result(version)));
    conflist(
        "10-testnet.conflist",
        NET,
        version,
        "{\"type\":\"bridge\",\"bridge\":\"cni0\"}",
        "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}");
  }

  // --- 1. status ---

  @Test
  void statusNamesEveryFilePassedOverWithItsReasonUntilTheFirstValidOneByName() throws Exception {
    plugin("bridge", answer(result("0.4.0")));
    plugin("oldbridge", "[\"0.1.0\",\"0.2.0\"]", answer(result("0.2.0")), "exit 0");
    CniPlugin plugin = newPlugin(TIMEOUT);

    plugin.refresh();
    assertThat(plugin.status()).contains("cni config uninitialized");

    conf("05-notes.txt", "not a configuration at all");
    conf("10-broken.conflist", "{\"cniVersion\":\"0.4.0\",\"name\":");
    conf("20-missing.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"missing\",\"type\":\"nosuch\"}");
    conflist("30-old.conflist", "old", "0.4.0", "{\"type\":\"oldbridge\"}");
    plugin.refresh();

    String status = plugin.status().orElseThrow();
    String broken = confDir.resolve("10-broken.conflist") + ": malformed JSON";
    String missing =
        confDir.resolve("20-missing.conf")
            + ": failed to find plugin \"nosuch\" in path ["
            + bin
            + "]";
    String old =
        confDir.resolve("30-old.conflist")
            + ": plugin oldbridge does not support config version \"0.4.0\"";
    assertThat(status)
        .startsWith("cni config uninitialized (")
        .contains(broken, missing, old)
        .doesNotContain("05-notes.txt");
    assertThat(status.indexOf(broken)).isLessThan(status.indexOf(missing));
    assertThat(status.indexOf(missing)).isLessThan(status.indexOf(old));

    // A valid list after them in name order is chosen; a later valid one is not.
    conflist(
        "40-good.conflist",
        "good",
        "0.4.0",
        "{\"type\":\"bridge\",\"capabilities\":{\"portMappings\":true}}");
    conf("50-later.json", "{\"cniVersion\":\"0.4.0\",\"name\":\"later\",\"type\":\"bridge\"}");
    plugin.refresh();

    assertThat(plugin.status()).isEmpty();
    assertThat(plugin.mapsHostPorts()).isTrue();
    plugin.setUp(sandbox(WEB), "sandbox-1", "/proc/1/ns/net");
    assertThat(ops())
        .filteredOn(c -> c.type().equals("bridge"))
        .singleElement()
        .satisfies(c -> assertThat(c.conf().path("name").asText()).isEqualTo("good"));

    // The chosen file going away makes the next one by name the network.
    Files.delete(confDir.resolve("40-good.conflist"));
    plugin.refresh();
    assertThat(plugin.status()).isEmpty();
    assertThat(plugin.mapsHostPorts()).isFalse();
  }

  // --- 2. ADD ---

  @Test
  void addRunsLoopbackThenTheChainWithDockershimsArgumentsCapabilitiesAndPrevResult()
      throws Exception {
    String bridgeResult = result("0.4.0");
    String portmapResult =
        "{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/proc/1/ns/net\"}],"
            + "\"ips\":[{\"version\":\"4\",\"address\":\""
            + IP
            + "/24\",\"interface\":0}],\"dns\":{\"nameservers\":[\"10.88.0.1\"]}}";
    plugin("bridge", answer(bridgeResult));
    plugin("portmap", answer(portmapResult));
    plugin("bandwidth", answer(portmapResult));
    conflist(
        "10-testnet.conflist",
        NET,
        "0.4.0",
        "{\"type\":\"bridge\",\"bridge\":\"cni0\",\"capabilities\":{\"ipRanges\":true}}",
        "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true,\"bandwidth\":false}}",
        "{\"type\":\"bandwidth\",\"capabilities\":{\"bandwidth\":true}}");
    CniPlugin plugin = newPlugin(TIMEOUT);
    plugin.refresh();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);
    SandboxConfig config =
        sandbox(
            WEB,
            List.of(
                new SandboxConfig.PortMapping(80, 8080, null, "TCP"),
                new SandboxConfig.PortMapping(9090, 0, null, "TCP")),
            Map.of(CapabilityArgs.INGRESS, "10M"));

    String id = rt.runPodSandbox(config);

    String netns = runtime.sandboxNetNs(id);
    List<Call> ops = ops();
    assertThat(summary(ops))
        .containsExactly(
            "loopback ADD lo", "bridge ADD eth0", "portmap ADD eth0", "bandwidth ADD eth0");
    assertThat(ops)
        .allSatisfy(
            c -> {
              assertThat(c.args()).isEqualTo(cniArgs(WEB, id));
              assertThat(c.containerId()).isEqualTo(id);
              assertThat(c.netns()).isEqualTo(netns).isNotEmpty();
              assertThat(c.cacheExisted()).as("cache file before %s's ADD", c.type()).isTrue();
            });

    JsonNode loopback = ops.get(0).conf();
    assertThat(loopback.path("name").asText()).isEqualTo("cni-loopback");
    assertThat(loopback.path("cniVersion").asText()).isEqualTo("0.2.0");
    assertThat(loopback.has("runtimeConfig")).isFalse();
    assertThat(loopback.has("prevResult")).isFalse();

    JsonNode bridge = ops.get(1).conf();
    assertThat(bridge.path("name").asText()).isEqualTo(NET);
    assertThat(bridge.path("cniVersion").asText()).isEqualTo("0.4.0");
    assertThat(bridge.path("bridge").asText()).isEqualTo("cni0");
    assertThat(bridge.has("prevResult")).isFalse();
    assertThat(bridge.get("runtimeConfig"))
        .isEqualTo(json("{\"ipRanges\":[[{\"subnet\":\"10.88.0.0/24\"}]]}"));

    JsonNode portmap = ops.get(2).conf();
    assertThat(portmap.get("prevResult")).isEqualTo(json(bridgeResult));
    assertThat(portmap.get("runtimeConfig"))
        .isEqualTo(
            json(
                "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,"
                    + "\"protocol\":\"tcp\",\"hostIP\":\"\"}]}"));

    JsonNode bandwidth = ops.get(3).conf();
    assertThat(bandwidth.get("prevResult")).isEqualTo(json(portmapResult));
    assertThat(bandwidth.get("runtimeConfig"))
        .isEqualTo(json("{\"bandwidth\":{\"ingressRate\":10000000,\"ingressBurst\":2147483647}}"));

    // The pod's IP is the ADD result's; the cache holds the attachment with its result.
    assertThat(podIps(rt, WEB)).containsExactly(IP);
    JsonNode cached = CniExec.JSON.readTree(cacheFile(id).toFile());
    assertThat(cached.path("kind").asText()).isEqualTo("cniCacheV1");
    assertThat(cached.path("containerId").asText()).isEqualTo(id);
    assertThat(cached.path("ifName").asText()).isEqualTo("eth0");
    assertThat(cached.path("networkName").asText()).isEqualTo(NET);
    assertThat(cached.get("result")).isEqualTo(json(portmapResult));
    assertThat(cacheFiles()).containsExactly(NET + "-" + id + "-eth0");
    assertThat(recorder.events).isEmpty();
  }

  // --- 3. DEL ---

  @ParameterizedTest(name = "cniVersion {0}: prevResult on DEL {1}")
  @CsvSource({"0.4.0, true", "0.3.1, false"})
  void stopDeletesInReverseOrderWithTheCachedResultFromSpec040AndForgetsTheAttachment(
      String version, boolean withPrevResult) throws Exception {
    bridgeAndPortmap(version);
    CniPlugin plugin = newPlugin(TIMEOUT);
    plugin.refresh();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);
    String id = rt.runPodSandbox(sandbox(WEB));
    String netns = runtime.sandboxNetNs(id);
    JsonNode cachedResult = CniExec.JSON.readTree(cacheFile(id).toFile()).get("result");
    assertThat(cachedResult).isEqualTo(json(result(version)));
    clearLog();

    rt.stopPodSandbox(id, Duration.ofSeconds(1));

    List<Call> ops = ops();
    assertThat(summary(ops))
        .containsExactly("loopback DEL lo", "portmap DEL eth0", "bridge DEL eth0");
    assertThat(ops)
        .allSatisfy(
            c -> {
              assertThat(c.netns()).isEqualTo(netns);
              assertThat(c.args()).isEqualTo(cniArgs(WEB, id));
            });
    assertThat(ops.get(0).hasPrevResult()).isFalse(); // loopback is 0.2.0
    for (Call c : ops.subList(1, 3)) {
      assertThat(c.conf().path("cniVersion").asText()).isEqualTo(version);
      if (withPrevResult) {
        assertThat(c.conf().get("prevResult")).as(c.type()).isEqualTo(cachedResult);
      } else {
        assertThat(c.hasPrevResult()).as(c.type()).isFalse();
      }
    }
    assertThat(cacheFile(id)).doesNotExist();
    assertThat(plugin.attached(id)).isFalse();
    assertThat(runtime.all())
        .singleElement()
        .satisfies(f -> assertThat(f.state).isEqualTo(ContainerState.EXITED));

    // A second stop and the removal run no plugin: nothing is attached any more.
    rt.stopPodSandbox(id, Duration.ofSeconds(1));
    rt.removePodSandbox(id);
    assertThat(ops()).hasSize(3);
    assertThat(runtime.all()).isEmpty();
  }

  // --- 4. a failing ADD ---

  @Test
  void aFailingAddIsThePluginsMessageAndLeavesNoSandboxNoAttachmentAndNoCacheFile()
      throws Exception {
    plugin(
        "bridge",
        ALL_VERSIONS,
        "echo '{\"code\":7,\"msg\":\"boom\",\"details\":\"why\"}'; exit 1",
        "exit 0");
    conflist("10-testnet.conflist", NET, "0.4.0", "{\"type\":\"bridge\"}");
    CniPlugin plugin = newPlugin(TIMEOUT);
    plugin.refresh();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);

    assertThatThrownBy(() -> rt.runPodSandbox(sandbox(WEB)))
        .isInstanceOfSatisfying(
            RuntimeError.class, e -> assertThat(e.kind()).isEqualTo(RuntimeError.Kind.START))
        .hasMessageContaining(
            "networkPlugin cni failed to set up pod \"web_shop\" network: boom; why");

    List<Call> ops = ops();
    assertThat(summary(ops))
        .containsExactly(
            "loopback ADD lo", "bridge ADD eth0", "loopback DEL lo", "bridge DEL eth0");
    String id = ops.get(0).containerId();
    assertThat(ops).allSatisfy(c -> assertThat(c.containerId()).isEqualTo(id));
    assertThat(ops.get(1).cacheExisted()).isTrue();
    assertThat(ops.get(3).hasPrevResult()).isFalse(); // ADD gave no result
    assertThat(runtime.all()).isEmpty();
    assertThat(runtime.calls()).contains("removeContainer " + id);
    assertThat(plugin.attached(id)).isFalse();
    assertThat(cacheFiles()).isEmpty();
  }

  // --- 5. a hanging ADD ---

  @Test
  void aHangingAddTimesOutWhileAnotherPodIsSetUpMeanwhile() throws Exception {
    plugin(
        "bridge",
        "case \"$CNI_ARGS\" in *K8S_POD_NAME=slow\\;*) sleep 60 ;; esac; "
            + answer(result("0.4.0")));
    conflist("10-testnet.conflist", NET, "0.4.0", "{\"type\":\"bridge\"}");
    CniPlugin plugin = newPlugin(Duration.ofSeconds(1));
    plugin.refresh();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);
    PodRef slowPod = new PodRef("uid-slow", "slow", "shop");
    PodRef fastPod = new PodRef("uid-fast", "fast", "shop");

    CompletableFuture<String> slow =
        CompletableFuture.supplyAsync(() -> rt.runPodSandbox(sandbox(slowPod)), pool);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ops().stream()
                    .anyMatch(
                        c ->
                            c.type().equals("bridge")
                                && c.command().equals("ADD")
                                && c.args().contains("K8S_POD_NAME=slow;")));
    CompletableFuture<String> fast =
        CompletableFuture.supplyAsync(() -> rt.runPodSandbox(sandbox(fastPod)), pool);
    String fastId = fast.get(10, TimeUnit.SECONDS);
    assertThat(slow).as("the slow pod's ADD still hangs").isNotDone();
    assertThat(podIps(rt, fastPod)).containsExactly(IP);

    assertThatThrownBy(() -> slow.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(RuntimeError.class)
        .hasMessageContaining("networkPlugin cni failed to set up pod \"slow_shop\" network")
        .hasMessageContaining("timed out");
    assertThat(runtime.all()).extracting(f -> f.id).containsExactly(fastId);
    assertThat(ops())
        .filteredOn(c -> c.command().equals("DEL"))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.args()).contains("K8S_POD_NAME=slow;"));
    assertThat(cacheFiles()).containsExactly(NET + "-" + fastId + "-eth0");
    // The hung plugin was killed, not left behind.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ProcessHandle.current()
                    .descendants()
                    .noneMatch(
                        h ->
                            h.info()
                                .commandLine()
                                .map(l -> l.contains(bin.toString()) || l.contains("sleep 60"))
                                .orElse(false)));
  }

  // --- 6. reconcile ---

  @Test
  void reconcileDeletesTheAttachmentOfASandboxThatNoLongerRunsAndKeepsTheRunningOnes()
      throws Exception {
    plugin("bridge", answer(result("0.4.0")));
    conflist("10-testnet.conflist", NET, "0.4.0", "{\"type\":\"bridge\"}");
    CniPlugin plugin = newPlugin(TIMEOUT);
    plugin.refresh();
    plugin.runtime(runtime);
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);
    PodRef gonePod = new PodRef("uid-gone", "gone", "shop");
    String gone = rt.runPodSandbox(sandbox(gonePod));
    String kept = rt.runPodSandbox(sandbox(WEB));
    JsonNode goneResult = CniExec.JSON.readTree(cacheFile(gone).toFile()).get("result");
    // Removed behind the plugin's back, as a crash or `docker rm -f` would.
    runtime.stopPodSandbox(gone, Duration.ZERO);
    runtime.removePodSandbox(gone);
    clearLog();

    plugin.reconcile();

    assertThat(ops())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.type()).isEqualTo("bridge");
              assertThat(c.command()).isEqualTo("DEL");
              assertThat(c.containerId()).isEqualTo(gone);
              assertThat(c.netns()).isEmpty();
              assertThat(c.ifName()).isEqualTo("eth0");
              assertThat(c.args()).isEqualTo(cniArgs(gonePod, gone));
              assertThat(c.conf().get("prevResult")).isEqualTo(goneResult);
            });
    assertThat(cacheFile(gone)).doesNotExist();
    assertThat(cacheFiles()).containsExactly(NET + "-" + kept + "-eth0");
    assertThat(plugin.attached(gone)).isFalse();
    assertThat(podIps(rt, WEB)).containsExactly(IP);

    // Nothing more to release: a second pass runs no plugin.
    plugin.reconcile();
    assertThat(ops()).hasSize(1);
  }

  // --- 7. host ports ---

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "host port on a network without portMappings, 8080, false, true",
    "host port on a network with portMappings,    8080, true,  false",
    "container port only,                         0,    false, false"
  })
  void aHostPortThatNoPluginMapsIsAWarningEvent(
      String name, int hostPort, boolean portMappings, boolean warned) throws Exception {
    plugin("bridge", answer(result("0.4.0")));
    conflist(
        "10-testnet.conflist",
        NET,
        "0.4.0",
        "{\"type\":\"bridge\",\"capabilities\":{\"portMappings\":" + portMappings + "}}");
    CniPlugin plugin = newPlugin(TIMEOUT);
    plugin.refresh();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, plugin, recorder, PodTimelines.NONE);

    rt.runPodSandbox(
        sandbox(WEB, List.of(new SandboxConfig.PortMapping(80, hostPort, "", "TCP")), Map.of()));

    if (warned) {
      assertThat(recorder.events)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.type()).isEqualTo(EventType.Warning);
                assertThat(e.reason()).isEqualTo(Reasons.HOST_PORT_IGNORED);
                assertThat(e.message()).contains("8080");
                assertThat(e.involved().getKind()).isEqualTo("Pod");
                assertThat(e.involved().getName()).isEqualTo(WEB.name());
                assertThat(e.involved().getNamespace()).isEqualTo(WEB.namespace());
                assertThat(e.involved().getUid()).isEqualTo(WEB.uid());
              });
    } else {
      assertThat(recorder.events).isEmpty();
    }
    // The pod is set up either way.
    assertThat(podIps(rt, WEB)).containsExactly(IP);
  }

  // --- 8. a restart ---

  @Test
  void attachmentsOfAPreviousInstanceGiveTheSameIpsWithoutRunningAPlugin() throws Exception {
    bridgeAndPortmap("0.4.0");
    CniPlugin before = newPlugin(TIMEOUT);
    before.refresh();
    String id =
        new NetworkedRuntime(runtime, before, recorder, PodTimelines.NONE)
            .runPodSandbox(sandbox(WEB));
    JsonNode cachedResult = CniExec.JSON.readTree(cacheFile(id).toFile()).get("result");
    clearLog();

    CniPlugin after = newPlugin(TIMEOUT);
    after.runtime(runtime);
    after.start();
    NetworkedRuntime rt = new NetworkedRuntime(runtime, after, recorder, PodTimelines.NONE);
    schedulers.runDue(); // the first reconciliation: the sandbox still runs

    assertThat(after.attached(id)).isTrue();
    assertThat(after.ips(id)).containsExactly(IP);
    assertThat(podIps(rt, WEB)).containsExactly(IP);
    assertThat(ops()).isEmpty();
    assertThat(cacheFile(id)).exists();

    // And the new instance tears it down as the old one would have.
    rt.stopPodSandbox(id, Duration.ofSeconds(1));
    assertThat(summary(ops()))
        .containsExactly("loopback DEL lo", "portmap DEL eth0", "bridge DEL eth0");
    assertThat(ops().get(1).conf().get("prevResult")).isEqualTo(cachedResult);
    assertThat(ops()).allSatisfy(c -> assertThat(c.args()).isEqualTo(cniArgs(WEB, id)));
    assertThat(cacheFile(id)).doesNotExist();
    after.stop();
  }
}
