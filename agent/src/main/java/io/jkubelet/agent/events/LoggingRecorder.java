package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.ObjectReference;

/**
 * Writes each event as one log line, in {@link LogSink}'s format, without a broadcaster: Warnings
 * at WARN, Normal events at INFO. With a broadcaster, register a {@link LogSink} as a watcher
 * instead.
 */
public final class LoggingRecorder implements EventRecorder {

  @Override
  public void event(ObjectReference o, EventType type, String reason, String message) {
    LogSink.log(o, type.name(), reason, message);
  }
}
