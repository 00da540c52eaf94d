package io.jkubelet.agent.cli;

import io.jkubelet.agent.Agent;
import io.jkubelet.agent.Dependencies;
import io.jkubelet.agent.KubeletOptions;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.util.NativeTls;
import io.jkubelet.config.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jkubelet run}: starts the node agent in the foreground until SIGTERM. Flags carry the
 * upstream kubelet's names and meanings, and override the {@code --config} file.
 *
 * <p>It holds upstream's core flags that have no subsystem of their own and the start-up of the
 * agent from them. Subsystems bring their flags as mixins ({@code NetworkFlags}, {@code
 * ResourceFlags}, {@code CertificateFlags}, {@code ServerFlags}, {@code PodFlags}, {@code
 * ExportFlags}, {@code GcFlags}) and their start-up as wiring classes ({@code CertificateWiring},
 * {@code GcWiring}, {@code PodCgroupsWiring}); {@code RunOptions} assembles the configuration from
 * the file and the flags.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the node agent in the foreground until SIGTERM or SIGINT.",
      "Stopping it leaves every pod running; the next start adopts them."
    })
public final class RunCommand implements Callable<Integer> {
  @picocli.CommandLine.Mixin ServerFlags serverFlags = new ServerFlags();

  @picocli.CommandLine.Mixin PodFlags podFlags = new PodFlags();

  @picocli.CommandLine.Mixin LogFlags logFlags = new LogFlags();
  @picocli.CommandLine.Mixin ExportFlags exportFlags = new ExportFlags();
  @picocli.CommandLine.Mixin NetworkFlags networkFlags = new NetworkFlags();
  @picocli.CommandLine.Mixin ResourceFlags resourceFlags = new ResourceFlags();
  @picocli.CommandLine.Mixin EvictionFlags evictionFlags = new EvictionFlags();
  @picocli.CommandLine.Mixin CertificateFlags certificateFlags = new CertificateFlags();
  @picocli.CommandLine.Mixin GcFlags gcFlags = new GcFlags();

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
      names = "--pod-manifest-path",
      paramLabel = "DIR",
      description = "Directory of static pod manifests (KubeletConfiguration staticPodPath).")
  String podManifestPath;

  @Option(
      names = "--manifest-url",
      paramLabel = "URL",
      description = "A URL serving a Pod or PodList of static pods (staticPodURL).")
  String manifestUrl;

  @Option(
      names = "--manifest-url-header",
      paramLabel = "'Name:value'",
      split = ",",
      description =
          "HTTP headers for --manifest-url, comma separated, e.g. 'Authorization:Bearer x'"
              + " (staticPodURLHeader).")
  java.util.List<String> manifestUrlHeaders;

  @Option(
      names = "--http-check-frequency",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Period of the manifest URL poll (default 20s).")
  Duration httpCheckFrequency;

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
      names = "--read-only-port",
      paramLabel = "PORT",
      description = "Port of the read-only HTTP server, 0 to disable (default 10255).")
  Integer readOnlyPort;

  @Option(
      names = "--address",
      paramLabel = "IP",
      description = "Address the servers listen on (default 0.0.0.0).")
  String address;

  @Option(
      names = "--pod-infra-container-image",
      paramLabel = "IMAGE",
      defaultValue = "jkubelet/pause:3.2",
      description = "The image of every pod's sandbox container (default: ${DEFAULT-VALUE}).")
  String podInfraContainerImage;

  @Option(
      names = "--pod-infra-oom-score-adj",
      paramLabel = "N",
      description =
          "oom_score_adj of sandbox containers (default 0; upstream uses -998, which some hosts"
              + " refuse: a refused value falls back to 0 with a warning).")
  Integer podInfraOomScoreAdj;

  @Option(
      names = "--sync-frequency",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Period of each pod's resync (default 1m, with jitter).")
  Duration syncFrequency;

  @Option(
      names = "--file-check-frequency",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "Period of the manifest directory rescan (default 20s).")
  Duration fileCheckFrequency;

  @Option(
      names = "--max-pods",
      paramLabel = "N",
      description = "The most pods this node runs (default 110).")
  Integer maxPods;

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
    Agent agent = Agent.create(options, Dependencies.forHost(options));
    CountDownLatch stopped = new CountDownLatch(1);
    if (HOOK_INSTALLED.compareAndSet(false, true)) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    agent.stop();
                    stopped.countDown();
                  },
                  "shutdown"));
    }
    agent.start();
    stopped.await();
    return 0;
  }

  /** Loads the file, overlays the flags, and validates; errors name the flag or field. */
  KubeletOptions options() {
    return RunOptions.assemble(this);
  }

  /**
   * Sets a configuration field from its flag when the flag was given, and remembers which flag set
   * it, so a validation error names the flag the user typed.
   */
  static <T> void overlay(
      Map<String, String> flagOf, T value, String field, String flag, Consumer<T> set) {
    if (value != null) {
      set.accept(value);
      flagOf.put(field, flag);
    }
  }

  /** Parses Go-style durations ("20s", "1m30s") for duration flags. */
  public static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
