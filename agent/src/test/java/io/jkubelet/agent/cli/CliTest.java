package io.jkubelet.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CliTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream oldOut;
  private PrintStream oldErr;

  @BeforeEach
  void capture() {
    oldOut = System.out;
    oldErr = System.err;
    System.setOut(new PrintStream(out, true));
    System.setErr(new PrintStream(err, true));
  }

  @AfterEach
  void restore() {
    System.setOut(oldOut);
    System.setErr(oldErr);
  }

  @Test
  void versionAndHelpWork() {
    assertThat(Main.execute("version")).isZero();
    assertThat(out.toString()).startsWith("jkubelet ").contains("v1.20.2");
    assertThat(Main.execute("run", "--help")).isZero();
    assertThat(out.toString())
        .contains("--pod-manifest-path", "--hostname-override", "--read-only-port")
        .as("a % in a description is printed as it is")
        .contains("nodefs.available<10%");
    assertThat(err.toString()).as("picocli formats every description").doesNotContain("WARN");
    for (var o : new CommandLine(new RunCommand()).getCommandSpec().options()) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      assertThat(String.join(" ", o.description()))
          .as(o.longestName() + " names its field, or says it is a flag only")
          .matches("(?s).*\\((flag only|[a-zA-Z0-9.]+)[,;)].*");
    }
  }

  /**
   * docs/configuration.md shows {@code run --help} as it is. The help derives from the settings'
   * declarations, so a new setting changes it: {@code -Djkubelet.docs.update=true} writes it anew.
   */
  @Test
  void theDocsShowRunsHelpAsItIs() throws Exception {
    Path doc = Path.of("..", "docs", "configuration.md");
    String text = Files.readString(doc);
    int start = text.indexOf("```\nRun the node agent") + 4;
    int end = text.indexOf("```", start);
    String help = new CommandLine(new RunCommand()).getUsageMessage();
    help = help.substring(help.indexOf("Run the node agent"));
    if (Boolean.getBoolean("jkubelet.docs.update")) {
      Files.writeString(doc, text.substring(0, start) + help + text.substring(end));
      return;
    }
    assertThat(text.substring(start, end))
        .as(doc + " shows `run --help`; -Djkubelet.docs.update=true writes it anew")
        .isEqualTo(help);
  }

  @Test
  void anUpstreamFlagAcceptedWithoutEffectIsParsedAndNotRefused() {
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--hostname-override", "n", "--contention-profiling");
    assertThat(run.options().nodeName()).isEqualTo("n");
    assertThat(Main.execute("run", "--hostname-override", "n", "--contention-profiling=maybe"))
        .as("its value is still checked")
        .isEqualTo(2);
    assertThat(err.toString()).contains("--contention-profiling").contains("maybe");
  }

  @Test
  void upstreamsRuntimeCloudAndGateFlagsRefuseWhatJkubeletCannotDo() {
    assertThat(Main.execute("run", "--hostname-override", "n", "--cloud-provider", "aws"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--cloud-provider: cloud provider \"aws\" is not supported")
        .contains("\"external\"");
    assertThat(Main.execute("run", "--hostname-override", "n", "--container-runtime=remote"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--container-runtime: \"remote\" is not supported: jkubelet runs pods on Docker");
    assertThat(Main.execute("run", "--hostname-override", "n", "--feature-gates=Foo=true"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--feature-gates: unrecognized feature gate: Foo");

    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--hostname-override",
            "n",
            "--cloud-provider=external",
            "--container-runtime=docker",
            "--container-runtime-endpoint=/run/docker.sock",
            "--fail-swap-on=false",
            "--provider-id=external://n");
    var options = run.options();
    assertThat(options.engine().dockerHost()).isEqualTo("unix:///run/docker.sock");
    assertThat(options.config().node().host().failSwapOn()).isFalse();
    assertThat(options.config().node().providerID()).isEqualTo("external://n");
    new CommandLine(run).parseArgs("--hostname-override", "n");
    assertThat(run.options().engine().dockerHost())
        .as("upstream's default endpoint is dockershim's: the engine is --docker-endpoint's")
        .isEqualTo("unix:///var/run/docker.sock");
    assertThat(run.options().config().node().host().failSwapOn()).as("upstream's default").isTrue();
  }

  @Test
  void startedAsKubeletItTakesUpstreamsCommandLine() {
    // kubeadm's KubeletVersion preflight check parses exactly this line.
    assertThat(KubeletCommandLine.execute(System.out, "--version")).isZero();
    assertThat(out.toString()).isEqualTo("Kubernetes v1.20.2" + System.lineSeparator());
    assertThat(KubeletCommandLine.execute(System.out, "--help")).isZero();
    assertThat(out.toString()).contains("--pod-manifest-path");
    assertThat(KubeletCommandLine.execute(System.out, "--no-such-flag")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--no-such-flag'");
  }

  @Test
  void badFlagsExitWithTwoAndNameTheFlag() {
    assertThat(Main.execute("run", "--read-only-port", "70000", "--hostname-override", "n"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--read-only-port: 70000 must be between 0 and 65535, inclusive");
    assertThat(Main.execute("run", "--sync-frequency", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--sync-frequency").contains("invalid duration \"soon\"");
    assertThat(Main.execute("run", "--no-such-flag")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--no-such-flag'");
    assertThat(Main.execute("run", "--hostname-override", "Not_A_Name")).isEqualTo(2);
    assertThat(err.toString()).contains("--hostname-override").contains("not a valid node name");
    assertThat(
            Main.execute(
                "run",
                "--allowed-unsafe-sysctls",
                "net.core.*,vm.swappiness",
                "--hostname-override",
                "n"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "--allowed-unsafe-sysctls: the sysctl \"vm.swappiness\" are not known to be namespaced");
    assertThat(Main.execute("run", "--container-log-max-size", "lots", "--hostname-override", "n"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--container-log-max-size: invalid containerLogMaxSize \"lots\"");
  }

  @Test
  void badConfigFileValuesExitWithTwoAndNameTheField() throws Exception {
    Path config = tmp.resolve("config.yaml");
    Files.writeString(
        config,
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: -1\n");
    assertThat(Main.execute("run", "--config", config.toString(), "--hostname-override", "n"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("maxPods");
  }

  @Test
  void flagsOverrideTheConfigFile() throws Exception {
    Path config = tmp.resolve("config.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        staticPodPath: /from/file
        syncFrequency: 2m
        readOnlyPort: 1234
        maxPods: 7
        authentication: {webhook: {enabled: false}}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--read-only-port",
            "4321",
            "--hostname-override",
            "Node-A");
    assertThatThrownBy(run::options)
        .as("a file's default authorization mode is Webhook, which needs the API server")
        .hasMessageContaining("cannot use webhook authorization");
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--read-only-port",
            "4321",
            "--hostname-override",
            "Node-A",
            "--authorization-mode",
            "AlwaysAllow");
    var options = run.options();
    assertThat(options.config().server().authentication().anonymous()).as("file default").isFalse();
    assertThat(options.config().server().readOnlyPort()).isEqualTo(4321);
    assertThat(options.config().pods().staticPods().staticPodPath()).isEqualTo("/from/file");
    assertThat(options.config().pods().lifecycle().syncFrequency())
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(options.config().pods().maxPods()).isEqualTo(7);
    assertThat(options.nodeName()).isEqualTo("node-a");
  }

  @Test
  void certificateFlagsAreUpstreamsAndTheFileGivesRotateCertificates() throws Exception {
    Path config = tmp.resolve("certs.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        rotateCertificates: true
        authentication: {webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--root-dir",
            tmp.toString(),
            "--kubeconfig",
            tmp.resolve("kubelet.conf").toString(),
            "--bootstrap-kubeconfig",
            tmp.resolve("bootstrap-kubelet.conf").toString());
    var options = run.options();
    assertThat(options.subsystems().certificates().rotateCertificates())
        .as("from the file")
        .isTrue();
    assertThat(options.subsystems().certificates().certDir()).isEqualTo(tmp.resolve("pki"));
    assertThat(options.certDir()).as("the serving certificate's too").isEqualTo(tmp.resolve("pki"));
    assertThat(options.subsystems().certificates().bootstrapKubeconfig())
        .isEqualTo(tmp.resolve("bootstrap-kubelet.conf"));
    assertThat(options.subsystems().certificates().bootstrapNeeded()).isTrue();

    RunCommand flags = new RunCommand();
    new CommandLine(flags)
        .parseArgs("--hostname-override", "n", "--cert-dir", "/x/pki", "--rotate-certificates");
    var standalone = flags.options();
    assertThat(standalone.certDir()).isEqualTo(Path.of("/x/pki"));
    assertThat(standalone.subsystems().certificates())
        .as("standalone: no client certificate to rotate")
        .isNull();

    RunCommand serving = new RunCommand();
    new CommandLine(serving)
        .parseArgs("--hostname-override", "n", "--rotate-server-certificates", "--kubeconfig=/k");
    var servingOptions = serving.options().subsystems().certificates();
    assertThat(servingOptions.rotateServerCertificates()).isTrue();
    assertThat(servingOptions.servingEnabled()).isTrue();
    assertThat(
            Main.execute(
                "run", "--hostname-override", "n", "--bootstrap-kubeconfig", "/etc/b.conf"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--bootstrap-kubeconfig: needs --kubeconfig");
  }

  @Test
  void networkFlagsAreUpstreamsAndTheFileGivesHairpinModeAndPodCidr() throws Exception {
    Path config = tmp.resolve("network.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        hairpinMode: hairpin-veth
        podCIDR: 10.1.2.0/24
        authentication: {webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--network-plugin=cni",
            "--cni-bin-dir=/a, /b",
            "--cni-conf-dir=/etc/x",
            "--cni-cache-dir=/var/c",
            "--pod-cidr=10.9.0.0/24,fd00::/64");
    var net = run.options().subsystems().network();
    assertThat(net.plugin()).isEqualTo("cni");
    assertThat(net.cni().binDirs()).containsExactly(Path.of("/a"), Path.of("/b"));
    assertThat(net.cni().confDir()).isEqualTo(Path.of("/etc/x"));
    assertThat(net.cni().cacheDir()).isEqualTo(Path.of("/var/c"));
    assertThat(net.hairpinMode()).as("from the file").isEqualTo("hairpin-veth");
    assertThat(net.podCidr()).as("the flag wins").containsExactly("10.9.0.0/24", "fd00::/64");
    assertThat(net.cni().execTimeout()).isEqualTo(Duration.ofSeconds(220));

    // kubeadm's drop-in passes --network-plugin=cni; an unknown plugin is fatal, as upstream.
    assertThat(Main.execute("run", "--hostname-override", "n", "--network-plugin", "weave"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("network plugin \"weave\" not found");
    assertThat(Main.execute("run", "--hostname-override", "n", "--hairpin-mode", "sometimes"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--hairpin-mode").contains("sometimes");
    assertThat(Main.execute("run", "--hostname-override", "n", "--pod-cidr", "ten/8")).isEqualTo(2);
    assertThat(err.toString()).contains("--pod-cidr");
  }

  @Test
  void resourceFlagsAreUpstreamsAndOverlayTheFilesCgroupFields() throws Exception {
    Path config = tmp.resolve("cgroups.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cgroupDriver: systemd
        cgroupRoot: /from-file
        podPidsLimit: 100
        authentication: {webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--cgroup-root=/jk",
            "--cpu-cfs-quota=false",
            "--cpu-cfs-quota-period=50ms",
            "--feature-gates=CustomCPUCFSQuotaPeriod=true",
            "--pod-max-pids=4096");
    var cg = run.options().subsystems().cgroups();
    assertThat(cg.cgroupDriver()).as("from the file").isEqualTo("systemd");
    assertThat(cg.cgroupRoot()).as("the flag wins").isEqualTo("/jk");
    assertThat(cg.podPidsLimit()).isEqualTo(4096);
    assertThat(cg.cpuCFSQuota()).isFalse();
    assertThat(cg.cpuPeriodMicros()).isEqualTo(50_000);
    assertThat(cg.cgroupsPerQOS()).isTrue();
    assertThat(cg.enforceNodeAllocatable()).containsExactly("pods");

    new CommandLine(run)
        .parseArgs(
            "--hostname-override", "n", "--cgroups-per-qos=false", "--enforce-node-allocatable=");
    cg = run.options().subsystems().cgroups();
    assertThat(cg.cgroupsPerQOS()).isFalse();
    assertThat(cg.enforceNodeAllocatable()).isEmpty();

    assertThat(Main.execute("run", "--hostname-override", "n", "--cgroup-driver", "docker"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--cgroup-driver: must be cgroupfs or systemd, got \"docker\"");
    assertThat(Main.execute("run", "--hostname-override", "n", "--cgroups-per-qos=false"))
        .as("upstream: enforcing pods needs the QoS cgroups")
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "enforceNodeAllocatable: is not supported unless cgroupsPerQOS is true: with"
                + " --cgroups-per-qos=false, give --enforce-node-allocatable= (an empty list) too");
    assertThat(
            Main.execute(
                "run",
                "--hostname-override",
                "n",
                "--cpu-cfs-quota-period",
                "2s",
                "--feature-gates=CustomCPUCFSQuotaPeriod=true"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--cpu-cfs-quota-period: must be between 1µs and 1s");
    assertThat(Main.execute("run", "--hostname-override", "n", "--cpu-cfs-quota-period", "50ms"))
        .as("upstream: another period needs the CustomCPUCFSQuotaPeriod gate")
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--cpu-cfs-quota-period: 50ms requires feature gate CustomCPUCFSQuotaPeriod");
  }

  @Test
  void gcFlagsAreUpstreamsAndOverlayTheFilesImageGcFields() throws Exception {
    Path config = tmp.resolve("gc.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        imageGCHighThresholdPercent: 90
        imageMinimumGCAge: 5m
        authentication: {webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--image-gc-low-threshold=50",
            "--minimum-image-ttl-duration=30s",
            "--minimum-container-ttl-duration=1m",
            "--maximum-dead-containers-per-container=3",
            "--maximum-dead-containers=100");
    var gc = run.options().config().resources().gc();
    assertThat(gc.imageGCHighThresholdPercent()).as("from the file").isEqualTo(90);
    assertThat(gc.imageGCLowThresholdPercent()).as("the flag").isEqualTo(50);
    assertThat(gc.imageMinimumGCAge()).as("the flag wins").isEqualTo(Duration.ofSeconds(30));
    assertThat(gc.minimumContainerTtl()).isEqualTo(Duration.ofMinutes(1));
    assertThat(gc.maxPerPodContainer()).isEqualTo(3);
    assertThat(gc.maxContainers()).isEqualTo(100);

    assertThat(
            Main.execute(
                "run",
                "--hostname-override",
                "n",
                "--image-gc-high-threshold=70",
                "--image-gc-low-threshold=75"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "--image-gc-low-threshold: 75 must be less than imageGCHighThresholdPercent"
                + " (--image-gc-high-threshold) 70");
    assertThat(Main.execute("run", "--hostname-override", "n", "--image-gc-high-threshold=101"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--image-gc-high-threshold: 101 must be between 0 and 100, inclusive");
    assertThat(gc.imageGcPeriod()).as("upstream's").isEqualTo(Duration.ofMinutes(5));
    RunCommand fast = new RunCommand();
    new CommandLine(fast).parseArgs("--hostname-override", "n", "--image-gc-period=5s");
    assertThat(fast.options().config().resources().gc().imageGcPeriod())
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(Main.execute("run", "--hostname-override", "n", "--image-gc-period=0s"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--image-gc-period: must be positive, got 0s");
  }

  @Test
  void evictionFlagsAreUpstreamsAndReplaceTheFilesMaps() throws Exception {
    Path config = tmp.resolve("eviction.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        kubeReserved: {memory: 1Gi}
        evictionHard: {memory.available: 200Mi, nodefs.available: 5%}
        evictionPressureTransitionPeriod: 1m
        authentication: {webhook: {enabled: false}}
        authorization: {mode: AlwaysAllow}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--system-reserved=cpu=100m,memory=512Mi",
            "--eviction-hard=memory.available<300Mi",
            "--eviction-soft=memory.available<1Gi",
            "--eviction-soft-grace-period=memory.available=30s",
            "--eviction-minimum-reclaim=memory.available=100Mi",
            "--eviction-max-pod-grace-period=15");
    var c = run.options().config();
    assertThat(c.resources().reservations().kube("memory")).as("from the file").isEqualTo(1L << 30);
    assertThat(c.resources().reservations().system("cpu")).isEqualTo(100);
    assertThat(c.resources().eviction().evictionHard())
        .as("the flag's map replaces the file's")
        .isEqualTo(Map.of("memory.available", "300Mi"));
    assertThat(c.resources().eviction().thresholds(true)).hasSize(3);
    assertThat(c.resources().eviction().evictionPressureTransitionPeriod())
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(c.resources().eviction().evictionMaxPodGracePeriod()).isEqualTo(15);

    assertThat(Main.execute("run", "--hostname-override", "n", "--kube-reserved", "gpu=1"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--kube-reserved: cannot reserve \"gpu\" resource");
    assertThat(
            Main.execute("run", "--hostname-override", "n", "--eviction-hard", "memory.free<1Gi"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--eviction-hard: unsupported eviction signal memory.free");
    assertThat(
            Main.execute(
                "run", "--hostname-override", "n", "--eviction-soft", "nodefs.available<20%"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "grace period must be specified for the soft eviction threshold nodefs.available");
  }

  @Test
  void eventExportFlagsOverlayTheConfigFileAndBuildTheExporters() throws Exception {
    Path config = tmp.resolve("config.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        authorization: {mode: AlwaysAllow}
        authentication: {webhook: {enabled: false}}
        eventExport: {url: "http://from-file:9200", index: file-index}
        """);
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--config",
            config.toString(),
            "--hostname-override",
            "n",
            "--event-export-url",
            "http://elastic:pw@127.0.0.1:9200",
            "--event-export-file",
            tmp.resolve("events.jsonl").toString(),
            "--event-export-spool-max",
            "64Mi");
    var e = run.options().config().events().export();
    assertThat(e.url()).isEqualTo("http://elastic:pw@127.0.0.1:9200");
    assertThat(e.index()).isEqualTo("file-index");
    assertThat(e.spoolMax()).isEqualTo("64Mi");
    var exporters =
        io.jkubelet.agent.export.Exporters.of(e, tmp, io.jkubelet.agent.util.Time.system());
    assertThat(exporters).extracting(x -> x.name()).containsExactly("bulk", "file");

    assertThat(Main.execute("run", "--hostname-override", "n", "--event-export-spool-max", "lots"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--event-export-spool-max").contains("\"lots\"");
    assertThat(Main.execute("run", "--hostname-override", "n", "--event-export-index", "Bad Index"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--event-export-index");
  }

  @Test
  void exportEventsNeedsAKubeconfigAndADestination() throws Exception {
    assertThat(Main.execute("export-events", "--help")).isZero();
    assertThat(out.toString())
        .contains("--kubeconfig", "--namespace", "--leader-elect", "--event-export-url");
    assertThat(Main.execute("export-events", "--event-export-file", "x")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option: '--kubeconfig=FILE'");
    ExportEventsCommand cmd = new ExportEventsCommand();
    new CommandLine(cmd).parseArgs("--kubeconfig", "kc");
    assertThatThrownBy(cmd::settings)
        .hasMessageContaining("--event-export-url: give --event-export-url or --event-export-file");
    new CommandLine(cmd)
        .parseArgs(
            "--kubeconfig",
            "kc",
            "--event-export-url",
            "http://h:9200",
            "--event-export-index",
            "UP");
    assertThatThrownBy(cmd::settings).hasMessageContaining("--event-export-index");
  }
}
