package io.jkubelet.agent.hollow;

import io.jkubelet.agent.certificates.CertificateOptions;
import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.runtime.fake.FakeImageService;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.util.SharedSchedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.KubeletConfiguration;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What each hollow node is built from: its {@link KubeletOptions} and its {@link Dependencies}, for
 * the one composition root to build a real agent from (registration, Lease, the API pod source,
 * status manager, PLEG, pod workers, probes and events are the agent's own). What would reach the
 * host is replaced: the runtime by {@link FakeRuntime#hollow} (every image pulls, containers run
 * until stopped), the machine by fixed facts, the pods' cgroups by none, the network plugin by
 * none; and nothing listens ({@code Dependencies.servesPorts} false, the read-only and healthz
 * ports off), nor are eviction thresholds read from the host (none). As kubemark's, the nodes'
 * events go to the log but not to the API server unless {@code apiEvents} says so.
 *
 * <p>Shared between the nodes, as their behaviour does not depend on it: the clock, the timers
 * ({@link SharedSchedulers}: a few threads for every node's periodic tasks) and, through {@code
 * client.ApiHttpClients}, the process's one HTTP engine. Each node keeps its own identity (its
 * kubeconfig), its own clients and watches, as separate kubelets would. Thread-safe: immutable.
 */
public final class HollowNodes {
  /** The machine every hollow node reports: 4 CPUs, 16 GiB of memory, 100 GiB of disk. */
  public static final NodeInfo MACHINE =
      new NodeInfo(
          4,
          16L << 30,
          100L << 30,
          Map.of(),
          new NodeInfo.SystemInfo(
              "hollow", "jkubelet hollow node", "linux", "amd64", "hollow", "hollow", "hollow"));

  /** The text a kubeconfig path may hold, replaced by each node's name. */
  public static final String NODE = "{node}";

  /** The timer threads every hollow node's periodic tasks share. */
  public static final int TIMER_THREADS = 2;

  private final Options options;
  private final Time time;

  /**
   * @param count how many nodes
   * @param namePrefix node {@code i} is named {@code <namePrefix><i>}, from 0
   * @param kubeconfig each node's kubeconfig: a path where {@value #NODE} stands for the node's
   *     name (one client certificate per node, so that the Node authorizer and NodeRestriction see
   *     {@code system:node:<name>}); null: standalone nodes
   * @param rootDir under which each node has a directory of its own, named after it
   * @param nodeIp the IP every node reports
   * @param config the configuration every node runs with, before the hollow overrides ({@link
   *     #hollowConfig})
   * @param podInfraImage the sandbox image
   * @param apiEvents whether the nodes' events go to the API server: kubemark's hollow kubelet
   *     sends none (it has no event client), so a side-by-side run leaves them out
   */
  public record Options(
      int count,
      String namePrefix,
      @Nullable String kubeconfig,
      Path rootDir,
      String nodeIp,
      KubeletConfiguration config,
      String podInfraImage,
      boolean apiEvents) {
    public Options {
      Records.requireNonNull(Options.class, namePrefix, rootDir, nodeIp, config, podInfraImage);
      if (count < 1) {
        throw new IllegalArgumentException("--nodes must be at least 1, got " + count);
      }
      rootDir = rootDir.toAbsolutePath().normalize();
    }
  }

  /** One node's options and dependencies. */
  public record Node(KubeletOptions options, Dependencies deps) {}

  private HollowNodes(Options options, Time time) {
    this.options = options;
    this.time = time;
  }

  /** The nodes of these options, on real time with shared timers. Starts nothing. */
  public static HollowNodes of(Options options) {
    Time system = Time.system();
    return new HollowNodes(
        options,
        new Time(
            system.clock(),
            system.sleeper(),
            SharedSchedulers.create("hollow-timer", TIMER_THREADS)));
  }

  /** The nodes' names, in order. */
  public List<String> names() {
    return java.util.stream.IntStream.range(0, options.count())
        .mapToObj(i -> options.namePrefix() + i)
        .toList();
  }

  /** Node {@code i}'s options and dependencies: a new in-memory runtime of its own. */
  public Node node(int i) {
    String name = names().get(i);
    Path root = options.rootDir().resolve(name);
    KubeletOptions.Paths paths = KubeletOptions.Paths.under(root);
    CertificateOptions certificates =
        options.kubeconfig() == null
            ? null
            : CertificateOptions.of(
                Path.of(options.kubeconfig().replace(NODE, name)),
                null,
                paths.certDir(),
                false,
                false);
    KubeletConfiguration config = hollowConfig(options.config());
    KubeletOptions kubelet =
        new KubeletOptions(
            name,
            config,
            new KubeletOptions.Node(options.nodeIp(), Map.of(), List.of()),
            paths,
            new KubeletOptions.Engine("hollow", options.podInfraImage(), Duration.ofMinutes(5)),
            new KubeletOptions.Subsystems(
                NetworkOptions.NONE,
                new CgroupOptions(config.resources().cgroups(), CgroupOptions.DEFAULT_CGROUP_FS),
                certificates));
    FakeRuntime runtime = FakeRuntime.hollow(time.clock());
    Dependencies deps =
        new Dependencies(
            time,
            new HostFacts(options.nodeIp(), MACHINE),
            () -> Dependencies.Engine.of(runtime, new FakeImageService()),
            engine -> ContainerManager.NONE,
            cm -> OomSource.NONE,
            Map.of(),
            () -> {
              throw new IllegalStateException("a hollow node has no logind: no graceful shutdown");
            },
            Dependencies.Role.hollow(options.apiEvents()));
    return new Node(kubelet, deps);
  }

  /**
   * The configuration a hollow node runs with when none is given: kubemark v1.20's hollow kubelet's
   * ({@code pkg/kubemark/hollow_kubelet.go} and {@code cmd/kubemark/hollow-node.go}), so that a
   * side-by-side run compares like with like: its client's 10 requests a second (burst 20) where a
   * kubelet has 5 (10), and its 10-second sync period where a kubelet has a minute.
   */
  public static KubeletConfiguration kubemarkDefaults() {
    return KubeletConfiguration.builder()
        .set("kubeAPIQPS", 10)
        .set("kubeAPIBurst", 20)
        .set("syncFrequency", Duration.ofSeconds(10))
        .build();
  }

  /**
   * The configuration with what a hollow node cannot or should not do switched off: the read-only
   * and healthz ports (nothing listens), the pods' cgroups, and eviction (no thresholds: the
   * machine is not the host's).
   */
  public static KubeletConfiguration hollowConfig(KubeletConfiguration config) {
    return config.toBuilder()
        .set("readOnlyPort", 0)
        .set("healthzPort", 0)
        .set("cgroupsPerQOS", false)
        .set("enforceNodeAllocatable", List.of())
        .set("evictionHard", Map.of())
        .build();
  }
}
