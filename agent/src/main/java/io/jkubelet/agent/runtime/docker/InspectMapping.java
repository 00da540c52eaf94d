package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pure functions from listings and inspects ({@link Inspected}) to the {@code runtime} records, as
 * dockershim mapped them ({@code toRuntimeAPIContainer}, {@code toPodSandboxStatus}): no engine
 * calls, so every case is unit-tested on hand-made objects. Stateless.
 */
final class InspectMapping {
  private static final Logger log = LoggerFactory.getLogger(InspectMapping.class);

  private static final String ZERO_TIME_PREFIX = "0001-01-01";
  static final String DOCKER_PULLABLE = "docker-pullable://";
  static final String DOCKER_IMAGE = "docker://";

  private InspectMapping() {}

  /**
   * The labels {@link #summary(String, Map, String, Long)} reads; a listing parser may drop the
   * others.
   */
  static final Set<String> SUMMARY_LABELS =
      Set.of(
          Labels.POD_UID,
          Labels.POD_NAME,
          Labels.POD_NAMESPACE,
          Labels.CONTAINER_NAME,
          Labels.RESTART_COUNT,
          Labels.DOCKER_TYPE);

  /**
   * A container docker-java listed, as a summary; see {@link #summary(String, Map, String, Long)}.
   */
  static Optional<ContainerSummary> summary(Container c) {
    return summary(c.getId(), c.getLabels(), c.getState(), c.getCreated());
  }

  /**
   * A listed container as a summary, or empty when its labels name no pod: the one mapping of a
   * listing's {@code Id}, {@code Labels} (only {@link #SUMMARY_LABELS}; null for none), {@code
   * State} and {@code Created} (epoch seconds; null for none), whoever parsed them.
   */
  static Optional<ContainerSummary> summary(
      String id, Map<String, String> labels, String state, Long created) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    // The engine filtered on the label; an empty value is still not a pod.
    return Labels.podOf(l)
        .map(
            pod -> {
              boolean sandbox = isSandbox(l);
              return new ContainerSummary(
                  id,
                  pod,
                  sandbox ? Labels.POD_CONTAINER_NAME : l.getOrDefault(Labels.CONTAINER_NAME, ""),
                  sandbox,
                  listState(state),
                  Instant.ofEpochSecond(created == null ? 0 : created),
                  Labels.intLabel(l, Labels.RESTART_COUNT, 0));
            });
  }

  /**
   * A sandbox container's status: ready while it runs; its IP only then, and never on the host's
   * network; its attempt from the trailing number of its name.
   */
  static SandboxStatus sandboxStatus(Inspected r) {
    boolean running = r.state() != null && r.state().running();
    boolean hostNetwork = "host".equals(r.network().mode());
    return SandboxStatus.of(
        r.id(),
        Labels.trailingNumber(r.name() == null ? "" : r.name()),
        running,
        running && !hostNetwork ? ipOf(r) : "",
        orEpoch(parseTime(r.created())),
        Map.copyOf(r.labels()));
  }

  /**
   * An app container's status; {@code imageRefs} maps image ids to their {@code docker-pullable://}
   * references (an id missing there becomes {@code docker://<id>}).
   */
  static ContainerStatus containerStatus(Inspected r, Map<String, String> imageRefs) {
    Map<String, String> labels = r.labels();
    Instant createdAt = orEpoch(parseTime(r.created()));
    Lifecycle life = lifecycle(r.state(), createdAt);
    String imageId = r.imageId() == null ? "" : r.imageId();
    return new ContainerStatus(
        r.id(),
        labels.getOrDefault(Labels.CONTAINER_NAME, ""),
        labels.getOrDefault(Labels.SANDBOX_ID, ""),
        life.state,
        new ContainerStatus.Times(createdAt, life.startedAt, life.finishedAt),
        new ContainerStatus.Exit(life.exitCode, life.reason, life.message),
        new ContainerStatus.Origin(
            r.config().image() == null ? "" : r.config().image(),
            imageRefs.getOrDefault(imageId, imageId.isEmpty() ? "" : DOCKER_IMAGE + imageId),
            labels.getOrDefault(Labels.CONTAINER_HASH, ""),
            Labels.intLabel(labels, Labels.RESTART_COUNT, 0),
            Map.copyOf(labels)),
        r.state() == null || !r.state().running() ? 0 : r.state().pid());
  }

  /** The state part of a {@link ContainerStatus}. */
  record Lifecycle(
      ContainerState state,
      Instant startedAt,
      Instant finishedAt,
      int exitCode,
      String reason,
      String message) {}

  /**
   * dockershim's mapping: a container that is not running has exited if it has a finish time;
   * without one, a non-zero exit code or an error means the start failed ({@code
   * ContainerCannotRun}, reported as exited and finished when it was created so that restart
   * policies apply); a dead one is an {@code Error}; otherwise it is merely created.
   */
  static Lifecycle lifecycle(Inspected.State st, Instant createdAt) {
    if (st == null) {
      return new Lifecycle(ContainerState.UNKNOWN, null, null, 0, "", "");
    }
    Instant startedAt = parseTime(st.startedAt());
    Instant finishedAt = parseTime(st.finishedAt());
    int exitCode = st.exitCode() == null ? 0 : (int) (long) st.exitCode();
    String error = st.error() == null ? "" : st.error();
    if (st.running()) {
      return new Lifecycle(ContainerState.RUNNING, startedAt, null, exitCode, "", error);
    }
    if (finishedAt != null) {
      boolean oomKilled = st.oomKilled();
      String reason = oomKilled ? "OOMKilled" : exitCode == 0 ? "Completed" : "Error";
      if (startedAt != null && finishedAt.isBefore(startedAt)) {
        // StartedAt is the daemon's clock once the start call returned, FinishedAt the exit
        // event's: a process that exits at once can "finish" a millisecond before it "started".
        finishedAt = startedAt;
      }
      return new Lifecycle(ContainerState.EXITED, startedAt, finishedAt, exitCode, reason, error);
    }
    if (exitCode != 0 || !error.isEmpty()) {
      int code = exitCode == 0 ? 128 : exitCode;
      return new Lifecycle(
          ContainerState.EXITED, startedAt, createdAt, code, "ContainerCannotRun", error);
    }
    if (st.dead()) {
      return new Lifecycle(ContainerState.EXITED, startedAt, createdAt, exitCode, "Error", error);
    }
    return new Lifecycle(ContainerState.CREATED, startedAt, null, exitCode, "", error);
  }

  /** {@code docker-pullable://repo@sha256:...} when the image has a repo digest. */
  static String imageRef(String imageId, List<String> repoDigests) {
    if (repoDigests != null && !repoDigests.isEmpty() && !repoDigests.get(0).isEmpty()) {
      return DOCKER_PULLABLE + repoDigests.get(0);
    }
    return DOCKER_IMAGE + imageId;
  }

  /** Whether the labels mark a pod sandbox ({@code io.kubernetes.docker.type=podsandbox}). */
  static boolean isSandbox(Map<String, String> labels) {
    return Labels.TYPE_SANDBOX.equals(labels.get(Labels.DOCKER_TYPE));
  }

  /** A listing's state word as a {@link ContainerState}. */
  static ContainerState listState(String state) {
    if (state == null) {
      return ContainerState.UNKNOWN;
    }
    return switch (state.toLowerCase(Locale.ROOT)) {
      case "running" -> ContainerState.RUNNING;
      case "created" -> ContainerState.CREATED;
      case "exited", "dead" -> ContainerState.EXITED;
      default -> ContainerState.UNKNOWN;
    };
  }

  /**
   * The IP on the default bridge, else on any other network the container is on, else the top-level
   * {@code IPAddress} (deprecated: engines from API 1.44 on no longer send it), else "".
   */
  static String ipOf(Inspected r) {
    String bridge = r.network().ips().get("bridge");
    if (bridge != null && !bridge.isEmpty()) {
      return bridge;
    }
    return r.network().ips().values().stream()
        .filter(ip -> ip != null && !ip.isEmpty())
        .findFirst()
        .orElse(r.network().ipAddress() == null ? "" : r.network().ipAddress());
  }

  /** Docker's RFC 3339 (nanosecond) time, or null for its zero time or nothing. */
  static Instant parseTime(String time) {
    if (time == null || time.isEmpty() || time.startsWith(ZERO_TIME_PREFIX)) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      log.debug("DockerRuntime: unparseable time {}", time);
      return null;
    }
  }

  private static Instant orEpoch(Instant t) {
    return t == null ? Instant.EPOCH : t;
  }
}
