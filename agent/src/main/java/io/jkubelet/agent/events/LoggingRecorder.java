package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each event as one log line: Warnings at WARN, Normal events at INFO. This is the log sink
 * of the event pipeline and, in standalone mode, the whole of it.
 */
public final class LoggingRecorder implements EventRecorder {
  private static final Logger log = LoggerFactory.getLogger("io.jkubelet.events");

  @Override
  public void event(ObjectReference o, EventType type, String reason, String message) {
    String object =
        o.getKind()
            + " "
            + (o.getNamespace() == null || o.getNamespace().isEmpty() ? "" : o.getNamespace() + "/")
            + o.getName()
            + (o.getFieldPath() == null ? "" : " " + o.getFieldPath());
    if (type == EventType.Warning) {
      log.warn("Event({}): type: 'Warning' reason: '{}' {}", object, reason, message);
    } else {
      log.info("Event({}): type: 'Normal' reason: '{}' {}", object, reason, message);
    }
  }
}
