package io.jkubelet.agent.export;

import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.events.v1.Event;

/**
 * Maps an {@code events.k8s.io/v1} Event to the same document as its core/v1 view ({@link
 * EventDocuments}): {@code note} is the message, {@code regarding} the involved object, the count
 * and last time come from {@code series} (or the deprecated fields), {@code reportingController} is
 * the reporting component. Both views of one event share its UID, hence its document.
 */
public final class EventV1Documents {
  private EventV1Documents() {}

  public static ExportDocument of(Event e) {
    ObjectMeta meta = e.getMetadata() == null ? new ObjectMeta() : e.getMetadata();
    EventSource source =
        e.getDeprecatedSource() == null ? new EventSource() : e.getDeprecatedSource();
    String eventTime = EventDocuments.micro(e.getEventTime());
    long count = 1;
    String last = null;
    if (e.getSeries() != null) {
      count = e.getSeries().getCount() == null ? 1 : e.getSeries().getCount();
      last = EventDocuments.micro(e.getSeries().getLastObservedTime());
    } else if (e.getDeprecatedCount() != null && e.getDeprecatedCount() > 0) {
      count = e.getDeprecatedCount();
    }
    String first = EventDocuments.firstNonEmpty(e.getDeprecatedFirstTimestamp(), eventTime);
    last =
        EventDocuments.firstNonEmpty(
            last, EventDocuments.firstNonEmpty(e.getDeprecatedLastTimestamp(), first));
    return EventDocuments.document(
        new EventDocuments.Fields(
            EventDocuments.idOf(meta, source.getHost()),
            meta.getNamespace(),
            meta.getName(),
            new EventDocuments.What(e.getType(), e.getReason(), e.getNote(), e.getAction()),
            new EventDocuments.Times(Math.max(1, count), first, last, eventTime),
            e.getRegarding(),
            new EventDocuments.Origin(
                source.getComponent(),
                source.getHost(),
                e.getReportingController(),
                e.getReportingInstance())));
  }
}
