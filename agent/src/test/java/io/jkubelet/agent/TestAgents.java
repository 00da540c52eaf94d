package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.agent.cm.CgroupOptions;
import io.jkubelet.agent.cm.ContainerManager;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.network.NetworkOptions;
import io.jkubelet.agent.node.HostFacts;
import io.jkubelet.agent.node.NodeInfo;
import io.jkubelet.agent.nodeshutdown.FakeLogind;
import io.jkubelet.agent.nodeshutdown.Logind;
import io.jkubelet.agent.oom.OomSource;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.fake.FakeImageService;
import io.jkubelet.agent.setup.Dependencies;
import io.jkubelet.agent.setup.KubeletOptions;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.RecordingSleeper;
import io.jkubelet.agent.util.Schedulers;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Agents embedded in a test: the real composition root on a fake runtime and a fake clock (with the
 * real schedulers, so the agent's threads run), the node's events recorded as {@code "Reason:
 * message"} lines.
 */
final class TestAgents {
  static final NodeInfo MACHINE =
      new NodeInfo(
          4,
          8L << 30,
          100L << 30,
          Map.of(),
          new NodeInfo.SystemInfo("6.1.0", "Debian", "linux", "amd64", "m", "u", "b"));

  private TestAgents() {}

  /** What the agent recorded, and the UIDs of the objects it forgot. */
  static final class Recorded implements Consumer<Event>, EventBroadcaster.Remembering {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<String> forgotten = new CopyOnWriteArrayList<>();

    @Override
    public void accept(Event e) {
      events.add(e.getReason() + ": " + e.getMessage());
    }

    @Override
    public void forget(String uid) {
      forgotten.add(uid);
    }
  }

  /** A static pod's manifest: {@code web}, one busybox container sleeping, a 1 s grace period. */
  static final String WEB_POD =
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec:
        terminationGracePeriodSeconds: 1
        containers:
        - {name: c, image: 'jkubelet/busybox:1.35', command: [sleep, '3600']}
      """;

  /**
   * A standalone agent's configuration on a manifest directory, read every second, serving no port
   * (each on port 0, the read-only and healthz ports off).
   */
  static KubeletConfiguration staticPods(Path manifests) {
    return KubeletConfiguration.builder()
        .set("staticPodPath", manifests.toString())
        .set("fileCheckFrequency", Duration.ofSeconds(1))
        .set("readOnlyPort", 0)
        .set("port", 0)
        .set("healthzPort", 0)
        .set("address", "127.0.0.1")
        .build();
  }

  /**
   * Standalone options with every default but these, whose log directories stay under {@code
   * rootDir}.
   */
  static KubeletOptions standalone(
      String nodeName, Path rootDir, String nodeIp, KubeletConfiguration config) {
    return new KubeletOptions(
        nodeName,
        config,
        new KubeletOptions.Node(nodeIp, Map.of(), List.of()),
        KubeletOptions.Paths.under(rootDir),
        new KubeletOptions.Engine("unused", "jkubelet/pause:3.2", Duration.ofMinutes(5)),
        new KubeletOptions.Subsystems(NetworkOptions.NONE, CgroupOptions.DEFAULTS, null));
  }

  /** Dependencies on {@code runtime}, with {@code cgroups} as the pods' container manager. */
  static Dependencies dependencies(
      FakeClock clock, Runtime runtime, ContainerManager cgroups, Recorded recorded) {
    return dependencies(clock, runtime, cgroups, recorded, FakeLogind::new);
  }

  /** As above, with {@code logind} as systemd-logind. */
  static Dependencies dependencies(
      FakeClock clock,
      Runtime runtime,
      ContainerManager cgroups,
      Recorded recorded,
      Supplier<Logind> logind) {
    return new Dependencies(
        new Time(clock, new RecordingSleeper(clock), Schedulers.system()),
        new HostFacts("10.1.1.1", MACHINE),
        () -> Dependencies.Engine.of(runtime, new FakeImageService()),
        engine -> cgroups,
        cm -> OomSource.NONE,
        Map.of("test", recorded),
        logind,
        Dependencies.Role.EMBEDDED);
  }
}
