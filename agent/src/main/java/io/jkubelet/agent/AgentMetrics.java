package io.jkubelet.agent;

import io.jkubelet.agent.cm.CgroupDriver;
import io.jkubelet.agent.cm.CgroupName;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.metrics.ProbeCollectors;
import io.jkubelet.agent.metrics.ResourceCollector;
import io.jkubelet.agent.pleg.PodCache;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.server.DocumentRoute;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.stats.NodeReader;
import io.jkubelet.agent.stats.StatsOptions;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.config.CgroupSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The agent's metrics and stats, wired: the summary over the PLEG's pod cache and the node's one
 * reader (shared with the eviction manager), the collectors that read the prober and the pods at
 * scrape time, and the documents both servers serve ({@code /metrics}, {@code /metrics/probes},
 * {@code /metrics/resource}, {@code /stats/summary}). Builds nothing that does I/O; documents read
 * their sources when requested.
 */
final class AgentMetrics {
  private final KubeletMetrics metrics;
  private final NodeReader node;
  private final SummaryProvider summary;

  AgentMetrics(
      Setup setup,
      KubeletMetrics metrics,
      Supplier<Path> imageFsDir,
      PodCache cache,
      ProbeManager probes,
      PodManager podManager) {
    this.metrics = metrics;
    var config = setup.options().config();
    StatsOptions options =
        StatsOptions.host(
            setup.options().nodeName(),
            setup.host().machine().memoryBytes(),
            setup.options().rootDir(),
            imageFsDir,
            setup.options().podLogPaths(),
            setup.containerManager()::podCgroupPaths,
            podCgroupRoot(config.cgroups()));
    // One reader of the node's memory, disks and processes: the eviction manager reads through
    // it, and the summary reports its latest reading.
    this.node = NodeReader.create(options, setup.time().clock());
    this.summary =
        SummaryProvider.create(
            options,
            node,
            () -> cache.snapshot().values().stream().map(PodCache.Entry::status).toList(),
            setup.time().clock());
    metrics.register(ProbeCollectors.attempts(probes::stats));
    metrics.registerProbes(
        ProbeCollectors.results(
            probes::resultCounts,
            uid ->
                podManager
                    .byUid(uid)
                    .map(
                        p ->
                            new PodRef(
                                uid, p.getMetadata().getName(), p.getMetadata().getNamespace()))));
    metrics.registerResource(new ResourceCollector(summary::summary));
  }

  /**
   * Where below each hierarchy {@code kubepods} is, as the container manager names it: {@code
   * /kubepods} under the cgroup root with the cgroupfs driver, {@code /kubepods.slice} with
   * systemd; null without {@code cgroupsPerQOS}.
   */
  static String podCgroupRoot(CgroupSettings cg) {
    return cg.cgroupsPerQOS()
        ? CgroupDriver.of(cg.cgroupDriver())
            .path(
                CgroupName.parseCgroupfs(cg.cgroupRoot().isEmpty() ? "/" : cg.cgroupRoot())
                    .child("kubepods"))
        : null;
  }

  /** The one reader of the node's memory, file systems and processes. */
  NodeReader node() {
    return node;
  }

  KubeletMetrics metrics() {
    return metrics;
  }

  SummaryProvider summary() {
    return summary;
  }

  /** Adds the documents to the read-only port, as upstream's read-only port has them. */
  ReadOnlyServer serve(ReadOnlyServer server) {
    documents().forEach(server::serve);
    return server;
  }

  /**
   * The kubelet API's routes for the documents (its authorization maps them to {@code
   * nodes/metrics} and {@code nodes/stats}); each document is made on a virtual thread.
   */
  List<Route> routes() {
    Executor scrapes = r -> Thread.ofVirtual().name("kubelet-api-metrics").start(r);
    List<Route> out = new ArrayList<>();
    documents().forEach((path, doc) -> out.add(new DocumentRoute(path, doc, scrapes)));
    return out;
  }

  private Map<String, ReadOnlyServer.Resource> documents() {
    Map<String, ReadOnlyServer.Resource> out = new LinkedHashMap<>();
    for (KubeletMetrics.Endpoint e : KubeletMetrics.Endpoint.values()) {
      out.put(
          e.path(),
          new ReadOnlyServer.Resource(KubeletMetrics.CONTENT_TYPE, () -> metrics.scrape(e)));
    }
    out.put(
        "/stats/summary",
        new ReadOnlyServer.Resource(
            "application/json", () -> SummaryProvider.json(summary.summary())));
    return out;
  }
}
