package io.jkubelet.agent.cli;

import io.jkubelet.agent.Agent;
import io.jkubelet.agent.hollow.HollowNodes;
import io.jkubelet.agent.jvm.NativeHeapTrimmer;
import io.jkubelet.agent.util.NativeTls;
import io.jkubelet.agent.util.NettyLoops;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.ConfigLoader;
import io.jkubelet.config.ConfigValidator;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jkubelet hollow}: many hollow nodes in this process, as upstream's kubemark, until
 * SIGTERM. Each is the real agent that {@code run} builds ({@link Agent#create}), on the options
 * and dependencies of {@link HollowNodes}: an in-memory runtime, no ports, and the process's timers
 * and HTTP engine shared.
 */
@Command(
    name = "hollow",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run N hollow nodes in this process until SIGTERM or SIGINT, as upstream's kubemark: each is"
          + " the real agent (registration, Lease, pod source, status, PLEG, workers, probes,"
          + " events) on an in-memory container runtime, and serves no port.",
      "Each node needs a client identity of its own for the Node authorizer and NodeRestriction:"
          + " give --kubeconfig a path with {node} in it, e.g. nodes/{node}.kubeconfig, one"
          + " kubeconfig per node with a certificate for system:node:<name> in group"
          + " system:nodes (deploy/scripts/k8s-node-kubeconfig.sh makes them)."
    })
public final class HollowCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(HollowCommand.class);

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "1",
      description = "How many hollow nodes (default ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--node-name-prefix",
      paramLabel = "PREFIX",
      defaultValue = "hollow-node-",
      description = "Node i is named PREFIX<i>, from 0 (default ${DEFAULT-VALUE}).")
  String namePrefix;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Each node's kubeconfig; {node} in the path stands for the node's name. Without it the"
              + " nodes run standalone.")
  String kubeconfig;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "A KubeletConfiguration file every node runs with; the ports, cgroups and eviction are"
              + " switched off whatever it says. Without it, kubemark's hollow kubelet's settings:"
              + " 10 API requests a second (burst 20) and a 10 s sync period.")
  Path configFile;

  @Option(
      names = "--root-dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/jkubelet-hollow",
      description =
          "Under which each node keeps its pod directories, in a directory named after it"
              + " (default ${DEFAULT-VALUE}).")
  Path rootDir;

  @Option(
      names = "--node-ip",
      paramLabel = "IP",
      defaultValue = "127.0.0.1",
      description = "The IP every node reports (default ${DEFAULT-VALUE}).")
  String nodeIp;

  @Option(
      names = "--pod-infra-container-image",
      paramLabel = "IMAGE",
      defaultValue = "jkubelet/pause:3.2",
      description = "The sandbox image the nodes report pulling (default ${DEFAULT-VALUE}).")
  String podInfraContainerImage;

  @Option(
      names = "--api-events",
      description =
          "Send each node's events to the API server. Without it, as kubemark's hollow kubelet,"
              + " events are only logged.")
  boolean apiEvents;

  @Mixin Verbosity verbosity;

  @Override
  public Integer call() throws Exception {
    NativeTls.preload();
    NettyLoops.use(Runtime.getRuntime().availableProcessors());
    List<Agent> agents = agents();
    // The nodes share the JVM, so the process's own keeping is done once, here.
    NativeHeapTrimmer trimmer = NativeHeapTrimmer.forThisProcess(Schedulers.system());
    UntilStopped.run(
        () -> {
          startAll(agents);
          trimmer.start();
          log.info("Hollow: {} nodes started", agents.size());
        },
        () -> {
          trimmer.stop();
          stopAll(agents);
        });
    return 0;
  }

  /** The options of every node; errors name the flag. */
  HollowNodes hollowNodes() {
    KubeletConfiguration config =
        configFile == null
            ? HollowNodes.kubemarkDefaults()
            : ConfigLoader.load(configFile).config();
    ConfigValidator.validate(config);
    if (nodes < 1) {
      throw new ConfigException("--nodes", "must be at least 1, got " + nodes);
    }
    if (kubeconfig != null && nodes > 1 && !kubeconfig.contains(HollowNodes.NODE)) {
      log.warn(
          "Hollow: all {} nodes share the identity of {}; the Node authorizer and NodeRestriction"
              + " let a node write only its own objects (put {} in the path for one per node)",
          nodes,
          kubeconfig,
          HollowNodes.NODE);
    }
    return HollowNodes.of(
        new HollowNodes.Options(
            nodes,
            namePrefix,
            kubeconfig,
            rootDir,
            nodeIp,
            config,
            podInfraContainerImage,
            apiEvents));
  }

  /** Builds every node's agent with the one composition root; starts none. */
  List<Agent> agents() throws InterruptedException {
    HollowNodes hollow = hollowNodes();
    List<Agent> agents = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      HollowNodes.Node n = hollow.node(i);
      agents.add(Agent.create(n.options(), n.deps()));
    }
    return agents;
  }

  /** Starts the agents side by side; if one fails, stops those started and throws. */
  static void startAll(List<Agent> agents) throws InterruptedException {
    try (ExecutorService starts =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("hollow-start-", 0).factory())) {
      List<Future<?>> started = new ArrayList<>();
      for (Agent a : agents) {
        started.add(starts.submit(a::start));
      }
      for (Future<?> f : started) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          stopAll(agents);
          throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
      }
    }
  }

  /** Stops every agent (a stop that fails is logged by the agent itself). */
  static void stopAll(List<Agent> agents) {
    agents.parallelStream().forEach(Agent::stop);
  }
}
