package io.jkubelet.agent.metrics;

import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.prober.ProbeManager;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.server.DocumentRoute;
import io.jkubelet.agent.server.ReadOnlyServer;
import io.jkubelet.agent.server.Route;
import io.jkubelet.agent.stats.SummaryProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The documents both servers serve ({@code /metrics}, {@code /metrics/probes}, {@code
 * /metrics/resource}, {@code /stats/summary}), and the collectors that read the prober and the pods
 * at scrape time. Documents read their sources when requested.
 */
public final class AgentDocuments {
  private final KubeletMetrics metrics;
  private final SummaryProvider summary;

  /** Registers the prober's and the summary's collectors with {@code metrics}. */
  public AgentDocuments(
      KubeletMetrics metrics, SummaryProvider summary, ProbeManager probes, PodManager podManager) {
    this.metrics = metrics;
    this.summary = summary;
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

  public KubeletMetrics metrics() {
    return metrics;
  }

  public SummaryProvider summary() {
    return summary;
  }

  /** Adds the documents to the read-only port, as upstream's read-only port has them. */
  public ReadOnlyServer serve(ReadOnlyServer server) {
    documents().forEach(server::serve);
    return server;
  }

  /**
   * The kubelet API's routes for the documents (its authorization maps them to {@code
   * nodes/metrics} and {@code nodes/stats}); each document is made on the virtual thread that
   * authorized its request.
   */
  public List<Route> routes() {
    List<Route> out = new ArrayList<>();
    documents().forEach((path, doc) -> out.add(new DocumentRoute(path, doc)));
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
