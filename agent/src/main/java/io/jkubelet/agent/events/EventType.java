package io.jkubelet.agent.events;

/** The two event types the API knows. */
public enum EventType {
  Normal,
  Warning
}
