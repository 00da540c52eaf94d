package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broadcaster's log watcher: one line per event, Warnings at WARN and Normal events at INFO, as
 * client-go's {@code StartLogging}. The same format as {@link LoggingRecorder}. Thread-safe.
 */
public final class LogSink implements Consumer<Event> {
  static final Logger log = LoggerFactory.getLogger("io.jkubelet.events");

  @Override
  public void accept(Event e) {
    log(e.getInvolvedObject(), e.getType(), e.getReason(), e.getMessage());
  }

  /** Logs one event line. */
  static void log(ObjectReference o, String type, String reason, String message) {
    String object =
        o.getKind()
            + " "
            + (o.getNamespace() == null || o.getNamespace().isEmpty() ? "" : o.getNamespace() + "/")
            + o.getName()
            + (o.getFieldPath() == null ? "" : " " + o.getFieldPath());
    if (EventType.Warning.name().equals(type)) {
      log.warn("Event({}): type: 'Warning' reason: '{}' {}", object, reason, message);
    } else {
      log.info("Event({}): type: '{}' reason: '{}' {}", object, type, reason, message);
    }
  }
}
