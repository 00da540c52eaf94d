package io.jkubelet.agent.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The recorder of the event pipeline: it builds a core/v1 {@link Event} as client-go's {@code
 * recorder.makeEvent} does and hands it to the {@link EventBroadcaster}, which never blocks.
 *
 * <p>Ported from client-go {@code tools/record/event.go} (<a
 * href="https://github.com/kubernetes/client-go/blob/v0.20.2/tools/record/event.go">recorder</a>).
 * The name is {@code <involvedObject.name>.<hex nanos>}, as upstream, except that the nanos are
 * kept strictly increasing so that two events in the same clock tick (a coarse or fake clock) never
 * share a name and collide with AlreadyExists.
 *
 * <p>Thread-safe: the only state is the last name's nanos, an atomic.
 */
public final class BroadcastRecorder implements EventRecorder {
  public static final String COMPONENT = "kubelet";
  static final String DEFAULT_NAMESPACE = "default";

  private final Clock clock;
  private final String nodeName;
  private final EventBroadcaster broadcaster;
  private final AtomicLong lastNanos = new AtomicLong();

  public BroadcastRecorder(Clock clock, String nodeName, EventBroadcaster broadcaster) {
    this.clock = Objects.requireNonNull(clock);
    this.nodeName = Objects.requireNonNull(nodeName);
    this.broadcaster = Objects.requireNonNull(broadcaster);
  }

  @Override
  public void event(ObjectReference involved, EventType type, String reason, String message) {
    emit(Occurrence.now(involved, type, reason, message));
  }

  @Override
  public void emit(Occurrence o) {
    broadcaster.action(make(o));
  }

  @Override
  public void forget(String podUid) {
    broadcaster.forget(podUid);
  }

  /** The Event as it will be written; package-private for tests. */
  Event make(Occurrence o) {
    ObjectReference involved = o.involved();
    Map<String, String> annotations = o.annotations();
    Instant now = clock.instant();
    Instant at = o.when() == null ? now : o.when();
    String ts = rfc3339(at);
    String namespace =
        involved.getNamespace() == null || involved.getNamespace().isEmpty()
            ? DEFAULT_NAMESPACE
            : involved.getNamespace();
    return new EventBuilder()
        .withApiVersion("v1")
        .withKind("Event")
        .withNewMetadata()
        .withName(involved.getName() + "." + String.format("%016x", nextNanos(now)))
        .withNamespace(namespace)
        .withAnnotations(
            annotations == null || annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
        .endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder(involved).build())
        .withReason(o.reason())
        .withMessage(o.message())
        .withType(o.type().name())
        .withNewSource()
        .withComponent(COMPONENT)
        .withHost(nodeName)
        .endSource()
        .withFirstTimestamp(ts)
        .withLastTimestamp(ts)
        .withCount(1)
        .withReportingComponent(COMPONENT)
        .withReportingInstance(nodeName)
        .build();
  }

  /** Seconds-precision RFC 3339 in UTC, as {@code metav1.Time} serializes. */
  static String rfc3339(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  private long nextNanos(Instant now) {
    long n = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    return lastNanos.updateAndGet(last -> Math.max(n, last + 1));
  }
}
