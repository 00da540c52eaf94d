package io.jkubelet.agent.terminating;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.jkubelet.agent.util.GoQuote;
import io.jkubelet.config.Durations;
import java.time.Duration;

/**
 * One thing that holds a pod being deleted, as seen at one moment. On {@code /pods} each is a JSON
 * object with its {@code kind}, its components and its {@code message}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
public sealed interface Holder {

  /** What the event says of it. */
  @JsonProperty("message")
  String describe();

  /** A container that still runs (or whose state the runtime cannot tell). */
  @JsonTypeName("container")
  record ContainerNotExited(String container, String containerId, long pid, String state)
      implements Holder {
    @Override
    public String describe() {
      return String.format(
          "container %s has not exited (PID %s, %s)",
          GoQuote.quote(container), pid > 0 ? Long.toString(pid) : "unknown", state);
    }
  }

  /** A preStop hook that runs, which the container's stop waits on. */
  @JsonTypeName("preStop")
  record PreStopRunning(String container, long seconds) implements Holder {
    @Override
    public String describe() {
      return String.format(
          "preStop hook of container %s running for %s",
          GoQuote.quote(container), Durations.format(Duration.ofSeconds(seconds)));
    }
  }

  /** A volume whose tear-down failed, with the last error. */
  @JsonTypeName("volume")
  record VolumeNotTornDown(String volume, String error, long seconds) implements Holder {
    @Override
    public String describe() {
      return String.format(
          "volume %s not torn down for %s: %s",
          GoQuote.quote(volume), Durations.format(Duration.ofSeconds(seconds)), error);
    }
  }

  /**
   * A runtime call that has not returned.
   *
   * @param call the CRI's name, e.g. {@code StopContainer}
   * @param about what it is about: {@code container "app"}, {@code sandbox <id>} or {@code pod}
   */
  @JsonTypeName("runtimeCall")
  record RuntimeCallPending(String call, String about, long seconds) implements Holder {
    @Override
    public String describe() {
      return String.format(
          "runtime call %s for %s not returned after %s",
          call, about, Durations.format(Duration.ofSeconds(seconds)));
    }
  }
}
