package io.jkubelet.agent.cli;

import io.jkubelet.agent.Agent;
import io.jkubelet.agent.KubeletOptions;
import io.jkubelet.agent.Setup;
import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventStore;
import io.jkubelet.agent.events.LogSink;
import io.jkubelet.agent.export.ExportSink;
import io.jkubelet.agent.gc.ImageGcManager;
import io.jkubelet.agent.jvm.HeapKeeper;
import io.jkubelet.agent.metrics.EventCollector;
import io.jkubelet.agent.metrics.ExportCollector;
import io.jkubelet.agent.metrics.InstrumentedRuntime;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.agent.network.PluginNetwork;
import io.jkubelet.agent.network.PodNetwork;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.node.NodeFlags;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.status.LocalStatusManager;
import io.jkubelet.agent.util.NativeTls;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jkubelet run}: starts the node agent in the foreground until SIGTERM. Flags carry the
 * upstream kubelet's names and meanings, and override the {@code --config} file.
 *
 * <p>The flags of the configuration's settings are made from their declarations ({@code
 * SettingFlags}, {@code io.jkubelet.config.Settings}), those of the file and those that are flags
 * only alike; the node's own flags that are not settings yet are the {@code @Option}s here.
 * Subsystems bring their start-up as wiring classes ({@code CertificateWiring}, {@code GcWiring},
 * {@code PodCgroupsWiring}); {@code RunOptions} assembles the configuration from the file and the
 * flags.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    modelTransformer = SettingFlags.Run.class,
    description = {
      "Run the node agent in the foreground until SIGTERM or SIGINT.",
      "Stopping it leaves every pod running; the next start adopts them."
    })
public final class RunCommand implements Callable<Integer> {
  /** The settings' flags, added to this command by {@link SettingFlags.Run}. */
  SettingFlags settingFlags;

  /** The network plugin's options, read by {@link #options()}. */
  NetworkOptions network = NetworkOptions.NONE;

  /** The container manager's options, read and validated by {@link #options()}. */
  CgroupOptions cgroups = CgroupOptions.DEFAULTS;

  /**
   * The client certificate's options, read by {@link #options()}; used by {@link
   * CertificateWiring}.
   */
  CertificateOptions certificates;

  private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "A kubelet.config.k8s.io/v1beta1 KubeletConfiguration file (YAML or JSON).")
  Path configFile;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "A kubeconfig of the API server: runs in cluster mode (registers the Node, runs the pods"
              + " bound to it). Without it, jkubelet runs standalone.")
  Path kubeconfig;

  @Option(
      names = "--node-labels",
      paramLabel = "k=v,...",
      description = "Labels added to the Node when it registers.")
  String nodeLabels;

  @Option(
      names = "--register-with-taints",
      paramLabel = "k=v:Effect,...",
      description = "Taints the Node registers with (NoSchedule, PreferNoSchedule, NoExecute).")
  String registerWithTaints;

  @Option(
      names = "--hostname-override",
      paramLabel = "NAME",
      description = "The node's name, instead of the hostname.")
  String hostnameOverride;

  @Option(
      names = "--root-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/jkubelet",
      description = "Where pod directories and volumes live (default: ${DEFAULT-VALUE}).")
  Path rootDir;

  @Option(
      names = "--pod-infra-container-image",
      paramLabel = "IMAGE",
      defaultValue = "jkubelet/pause:3.2",
      description = "The image of every pod's sandbox container (default: ${DEFAULT-VALUE}).")
  String podInfraContainerImage;

  @Option(
      names = "--node-ip",
      paramLabel = "IP",
      description = "The node's IP, reported as hostIP (default: detected).")
  String nodeIp;

  @Option(
      names = "--docker-endpoint",
      paramLabel = "URL",
      defaultValue = DockerRuntime.DEFAULT_HOST,
      description = "The Docker Engine endpoint (default: ${DEFAULT-VALUE}).")
  String dockerEndpoint;

  @Option(
      names = {"-v", "--v"},
      paramLabel = "LEVEL",
      defaultValue = "0",
      description = "Log verbosity: 0 info, 1-3 debug, 4+ trace.")
  int verbosity;

  @Override
  public Integer call() throws Exception {
    KubeletOptions options = options();
    NativeTls.preload();
    Time time = Time.system();
    Clock clock = time.clock();
    // Docker's client costs a fifth of a second of a start, mostly loading classes: it is made on
    // a thread of its own while the rest of the agent is read and built.
    CompletableFuture<DockerRuntime> engine =
        CompletableFuture.supplyAsync(
            () ->
                DockerRuntime.connect(options.dockerHost(), time)
                    .scopedTo(Map.of(Labels.NODE, options.nodeName())),
            r -> Thread.ofVirtual().name("docker-connect").start(r));
    KubeletMetrics metrics = new KubeletMetrics(options.nodeName());
    // Host facts are read here, once, so that building the agent does no I/O.
    HostFacts host = HostFacts.read(options.nodeIp(), options.rootDir());
    // The event pipeline: one line per event in the log, the newest events for /events (kept only
    // where the read-only port serves them), and in cluster mode the API server.
    EventBroadcaster broadcaster = new EventBroadcaster();
    EventStore store = options.config().server().readOnlyPort() == 0 ? null : new EventStore(clock);
    broadcaster.addWatcher("log", new LogSink());
    if (store != null) {
      broadcaster.addWatcher("store", store);
    }
    // And, when configured, Elasticsearch/OpenSearch and a JSON-lines file.
    ExportSink export = ExportFlags.sink(options.config().eventExport(), options.rootDir(), time);
    if (export != null) {
      broadcaster.addWatcher("export", export);
      metrics.register(new ExportCollector(export.exporters()));
    }
    var recorder = new BroadcastRecorder(clock, options.nodeName(), broadcaster);
    var events =
        new Setup.EventPipeline(
            export == null ? broadcaster : export.around(broadcaster),
            store == null ? (namespace, pod, uid) -> List.of() : store::list);
    // TLS bootstrap and the client certificate, before any API client is made.
    CertificateWiring certs =
        kubeconfig == null
            ? null
            : new CertificateWiring(certificates, options.nodeName(), time, recorder);
    var base = certs == null ? null : certs.load();
    if (certs != null) {
      certs.start();
    }
    DockerRuntime docker = connected(engine);
    // The engine's root directory is asked for by the node's first reading, not during the start.
    var imageGc = GcWiring.imageGc(options, docker.imageService(), recorder, time, metrics);
    var monitoring =
        new Agent.Monitoring(
            metrics, () -> docker.rootDir().orElse(null), GcWiring.collector(imageGc));
    PodNetwork podNetwork = PluginNetwork.create(network, time, recorder);
    ContainerManager containerManager =
        PodCgroupsWiring.create(cgroups, host.machine(), docker::cgroupDriver, options.config());
    var runtime = new InstrumentedRuntime(podNetwork.wrap(docker), metrics, clock);
    Agent kubelet;
    if (base != null) {
      kubelet =
          ClusterMode.build(
              options,
              host,
              base,
              flag("--node-labels", nodeLabels, NodeFlags::parseLabels, Map.<String, String>of()),
              flag(
                  "--register-with-taints",
                  registerWithTaints,
                  NodeFlags::parseTaints,
                  List.<io.fabric8.kubernetes.api.model.Taint>of()),
              runtime,
              recorder,
              time,
              broadcaster,
              events,
              monitoring,
              podNetwork,
              certs,
              containerManager);
    } else {
      metrics.register(new EventCollector(broadcaster::recorded, broadcaster::dropped, null, null));
      kubelet =
          new Agent(
              new Setup(
                  options,
                  host,
                  runtime,
                  recorder,
                  new LocalStatusManager(),
                  time,
                  null,
                  events,
                  podNetwork,
                  containerManager),
              monitoring);
    }
    EventCaches.register(metrics.caches(), broadcaster, store);
    Optional<HeapKeeper> heap = HeapKeeper.forThisJvm(clock, time.schedulers());
    CountDownLatch stopped = new CountDownLatch(1);
    if (HOOK_INSTALLED.compareAndSet(false, true)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    heap.ifPresent(HeapKeeper::stop);
                    imageGc.ifPresent(ImageGcManager::stop);
                    kubelet.stop();
                    if (certs != null) {
                      certs.stop();
                    }
                    stopped.countDown();
                  },
                  "shutdown"));
    }
    kubelet.start();
    heap.ifPresent(HeapKeeper::start);
    imageGc.ifPresent(ImageGcManager::start);
    stopped.await();
    return 0;
  }

  /** Loads the file, overlays the flags, and validates; errors name the flag or field. */
  KubeletOptions options() {
    return RunOptions.assemble(this);
  }

  /** Parses a flag's value; a parse error is a configuration error naming the flag. */
  private static <T> T flag(
      String name, String value, java.util.function.Function<String, T> parse, T none) {
    if (value == null || value.isBlank()) {
      return none;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, e.getMessage());
    }
  }

  /** The connected runtime; a failure to connect is thrown as it was thrown. */
  private static DockerRuntime connected(CompletableFuture<DockerRuntime> engine) {
    try {
      return engine.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }
}
