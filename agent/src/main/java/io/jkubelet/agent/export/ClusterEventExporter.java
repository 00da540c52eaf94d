package io.jkubelet.agent.export;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.jkubelet.agent.util.Lifecycle;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code jkubelet export-events}: an informer on a cluster's Events ({@code events.k8s.io/v1}, or
 * {@code core/v1} where that is all the server has), in all namespaces or one, that hands every add
 * and update to the exporters. The document id is the event's UID, so an update (a count bump)
 * replaces the same document, and a restart, whose informer lists every event again, rewrites the
 * same documents rather than adding new ones. Deletions (the API server's TTL) are not exported:
 * keeping events past that TTL is the point.
 *
 * <p>Lifecycle: {@link #start()} starts the exporters and then the informer; {@link #stop()} stops
 * the informer and then the exporters. Thread-safe: the informer's thread calls the exporters,
 * which are thread-safe.
 */
public final class ClusterEventExporter implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ClusterEventExporter.class);

  private final KubernetesClient client;
  private final String namespace;
  private final List<Exporter> exporters;
  private volatile SharedIndexInformer<?> informer;

  /**
   * @param namespace the namespace to export, or null for all
   */
  public ClusterEventExporter(KubernetesClient client, String namespace, List<Exporter> exporters) {
    this.client = Objects.requireNonNull(client);
    this.namespace = namespace;
    this.exporters = List.copyOf(exporters);
  }

  @Override
  public synchronized void start() {
    if (informer != null) {
      return;
    }
    exporters.forEach(Exporter::start);
    boolean v1 = client.supports(io.fabric8.kubernetes.api.model.events.v1.Event.class);
    String where = namespace == null ? "all namespaces" : "namespace " + namespace;
    if (v1) {
      var events = client.events().v1().events();
      informer =
          (namespace == null ? events.inAnyNamespace() : events.inNamespace(namespace))
              .inform(handler(EventV1Documents::of), 0);
    } else {
      var events = client.v1().events();
      informer =
          (namespace == null ? events.inAnyNamespace() : events.inNamespace(namespace))
              .inform(handler(EventDocuments::of), 0);
    }
    log.info(
        "export-events: exporting {} Events of {} to {}",
        v1 ? "events.k8s.io/v1" : "core/v1",
        where,
        exporters.stream().map(Exporter::name).toList());
  }

  private <T> ResourceEventHandler<T> handler(Function<T, ExportDocument> map) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T event) {
        export(map, event);
      }

      @Override
      public void onUpdate(T oldEvent, T newEvent) {
        export(map, newEvent);
      }

      @Override
      public void onDelete(T event, boolean deletedFinalStateUnknown) {}
    };
  }

  private <T> void export(Function<T, ExportDocument> map, T event) {
    ExportDocument d;
    try {
      d = map.apply(event);
    } catch (RuntimeException e) {
      log.warn("export-events: cannot map an event: {}", e.toString());
      return;
    }
    for (Exporter x : exporters) {
      x.export(d);
    }
  }

  @Override
  public synchronized void stop() {
    if (informer == null) {
      return;
    }
    informer.stop();
    informer = null;
    exporters.reversed().forEach(Exporter::stop);
  }

  @Override
  public Health healthy() {
    SharedIndexInformer<?> i = informer;
    if (i == null) {
      return Health.failing("export-events is not started");
    }
    for (Exporter x : exporters) {
      Health h = x.healthy();
      if (!h.ok()) {
        return h;
      }
    }
    return i.isRunning() ? Health.OK : Health.failing("export-events: the informer is not running");
  }
}
