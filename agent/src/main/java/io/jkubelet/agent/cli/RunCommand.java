package io.jkubelet.agent.cli;

import io.jkubelet.agent.Agent;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.util.NativeTls;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jkubelet run}: starts the node agent in the foreground until SIGTERM. Flags carry the
 * upstream kubelet's names and meanings, and override the {@code --config} file.
 *
 * <p>The flags of the configuration's settings are made from their declarations ({@code
 * SettingFlags}, {@code io.jkubelet.config.Settings}), those of the file and those that are flags
 * only alike; the node's own flags that are not settings yet are the {@code @Option}s here. {@code
 * RunOptions} assembles the configuration from the file and the flags into one {@code
 * KubeletOptions}; {@link Agent#create} (the composition root) builds every subsystem from it.
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "A kubelet.config.k8s.io/v1beta1 KubeletConfiguration file (YAML or JSON) (flag only).")
  Path configFile;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "A kubeconfig of the API server: runs in cluster mode (registers the Node, runs the pods"
              + " bound to it). Without it, jkubelet runs standalone (flag only).")
  Path kubeconfig;

  @Option(
      names = "--node-labels",
      paramLabel = "k=v,...",
      description = "Labels added to the Node when it registers (flag only).")
  String nodeLabels;

  @Option(
      names = "--register-with-taints",
      paramLabel = "k=v:Effect,...",
      description =
          "Taints the Node is created with (NoSchedule, PreferNoSchedule, NoExecute); a Node that"
              + " exists keeps its own, and with --register-node=false none are set (flag only).")
  String registerWithTaints;

  @Option(
      names = "--hostname-override",
      paramLabel = "NAME",
      description =
          "The node's name, instead of the kernel's host name (flag only; default: uname -n,"
              + " lower-cased, with no name resolution).")
  String hostnameOverride;

  @Option(
      names = "--root-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/kubelet",
      description =
          "Where pod directories and volumes live, and the certificates (--cert-dir's default,"
              + " <root-dir>/pki) (flag only, default ${DEFAULT-VALUE}, upstream's).")
  Path rootDir;

  @Option(
      names = "--pod-infra-container-image",
      paramLabel = "IMAGE",
      defaultValue = "jkubelet/pause:3.2",
      description =
          "The image of every pod's sandbox container (flag only, default ${DEFAULT-VALUE}).")
  String podInfraContainerImage;

  @Option(
      names = "--node-ip",
      paramLabel = "IP",
      description =
          "The node's IP, reported as hostIP (flag only; default: the node's name's address on"
              + " this host, else an interface's).")
  String nodeIp;

  @Option(
      names = "--docker-endpoint",
      paramLabel = "URL",
      defaultValue = DockerRuntime.DEFAULT_HOST,
      description = "The Docker Engine endpoint (flag only, default ${DEFAULT-VALUE}).")
  String dockerEndpoint;

  @Mixin Verbosity verbosity;

  @Override
  public Integer call() throws Exception {
    KubeletOptions options = options();
    NativeTls.preload();
    Agent agent = Agent.create(options, Dependencies.forHost(options));
    UntilStopped.run(agent::start, agent::stop);
    return 0;
  }

  /** Loads the file, overlays the flags, and validates; errors name the flag or field. */
  KubeletOptions options() {
    return RunOptions.assemble(this);
  }
}
