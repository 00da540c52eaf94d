package io.jkubelet.agent.export;

import io.fabric8.kubernetes.api.model.Event;
import io.jkubelet.agent.events.BroadcastRecorder;
import io.jkubelet.agent.events.EventBroadcaster;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventStore;
import io.jkubelet.agent.events.LogSink;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.EventExport;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The node's event pipeline, built before anything that records: one line per event in the log, the
 * newest events for {@code /events} (kept only where the read-only port serves them), the
 * configured export (Elasticsearch/OpenSearch, a JSON-lines file), and the watchers given; the API
 * server's sink is added to the broadcaster in cluster mode, before the start.
 *
 * @param broadcaster the broadcaster every watcher hangs on
 * @param store the newest events for {@code /events}; null where the read-only port is off
 * @param recorder the node's recorder, onto the broadcaster
 * @param export the export's sink; empty when the configuration exports nowhere
 * @param lifecycle the broadcaster, with the export's exporters started before it and stopped after
 *     it
 */
public record EventPipeline(
    EventBroadcaster broadcaster,
    EventStore store,
    EventRecorder recorder,
    Optional<ExportSink> export,
    Lifecycle lifecycle) {

  /**
   * The pipeline of {@code nodeName}'s events.
   *
   * @param keepStore whether {@code /events} is served (a read-only port)
   * @param watchers more watchers, beside the pipeline's own (tests)
   * @throws io.jkubelet.config.ConfigException naming {@code eventExport} for a target that cannot
   *     be used
   */
  public static EventPipeline create(
      String nodeName,
      EventExport export,
      Path rootDir,
      boolean keepStore,
      Map<String, Consumer<Event>> watchers,
      Time time) {
    EventBroadcaster broadcaster = EventBroadcaster.create();
    broadcaster.addWatcher("log", new LogSink());
    EventStore store = keepStore ? EventStore.create(time.clock()) : null;
    if (store != null) {
      broadcaster.addWatcher("store", store);
    }
    Optional<ExportSink> sink = Exporters.sink(export, rootDir, time);
    sink.ifPresent(e -> broadcaster.addWatcher("export", e));
    watchers.forEach(broadcaster::addWatcher);
    return new EventPipeline(
        broadcaster,
        store,
        new BroadcastRecorder(time.clock(), nodeName, broadcaster),
        sink,
        sink.<Lifecycle>map(e -> e.around(broadcaster)).orElse(broadcaster));
  }
}
