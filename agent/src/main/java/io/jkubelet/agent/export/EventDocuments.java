package io.jkubelet.agent.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * Maps an Event (core/v1, or events.k8s.io/v1 through {@link EventV1Documents}) to its exported
 * document. The document is flat where operators query: {@code namespace}, {@code name}, {@code
 * type}, {@code reason}, {@code message}, {@code count}, {@code firstTimestamp}, {@code
 * lastTimestamp}, {@code eventTime}, {@code @timestamp} (the last occurrence), {@code
 * involvedObject.{kind,namespace,name,uid,apiVersion,fieldPath}}, {@code source.{component,host}},
 * {@code reportingComponent}, {@code reportingInstance}, {@code action}, and {@code uid}, the
 * document's id.
 *
 * <p>The id is the event's {@code metadata.uid}. An event that has none (jkubelet's own events,
 * which the API server has not seen) gets a name-based UUID of its source host, namespace and name:
 * the correlator keeps an event's name across count bumps, so every version of it maps to one
 * document; and the spool keeps the id, so a restart resends the same one.
 *
 * <p>Stateless and thread-safe.
 */
public final class EventDocuments {
  private static final JsonFactory JSON = new JsonFactory();

  private EventDocuments() {}

  /** The document of a core/v1 Event. */
  public static ExportDocument of(Event e) {
    ObjectMeta meta = e.getMetadata() == null ? new ObjectMeta() : e.getMetadata();
    EventSource source = e.getSource() == null ? new EventSource() : e.getSource();
    String id = idOf(meta, source.getHost());
    long count = e.getCount() == null || e.getCount() < 1 ? 1 : e.getCount();
    String eventTime = micro(e.getEventTime());
    String first = firstNonEmpty(e.getFirstTimestamp(), eventTime);
    String last = firstNonEmpty(e.getLastTimestamp(), first);
    var fields =
        new Fields(
            id,
            meta.getNamespace(),
            meta.getName(),
            new What(e.getType(), e.getReason(), e.getMessage(), e.getAction()),
            new Times(count, first, last, eventTime),
            e.getInvolvedObject(),
            new Origin(
                source.getComponent(),
                source.getHost(),
                e.getReportingComponent(),
                e.getReportingInstance()));
    return document(fields);
  }

  /** The fields a document is written from; package-private for {@link EventV1Documents}. */
  record Fields(
      String id,
      String namespace,
      String name,
      What what,
      Times times,
      ObjectReference involved,
      Origin origin) {}

  /** What happened: the event's type, reason, message and action. */
  record What(String type, String reason, String message, String action) {}

  /** How often and when. */
  record Times(long count, String firstTimestamp, String lastTimestamp, String eventTime) {}

  /** Who reported it: the source and the reporting controller. */
  record Origin(
      String sourceComponent,
      String sourceHost,
      String reportingComponent,
      String reportingInstance) {}

  static ExportDocument document(Fields f) {
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("uid", f.id());
      string(g, "@timestamp", f.times().lastTimestamp());
      string(g, "namespace", f.namespace());
      string(g, "name", f.name());
      string(g, "type", f.what().type());
      string(g, "reason", f.what().reason());
      string(g, "message", f.what().message());
      g.writeNumberField("count", f.times().count());
      string(g, "firstTimestamp", f.times().firstTimestamp());
      string(g, "lastTimestamp", f.times().lastTimestamp());
      string(g, "eventTime", f.times().eventTime());
      ObjectReference ref = f.involved();
      if (ref != null) {
        g.writeObjectFieldStart("involvedObject");
        string(g, "kind", ref.getKind());
        string(g, "namespace", ref.getNamespace());
        string(g, "name", ref.getName());
        string(g, "uid", ref.getUid());
        string(g, "apiVersion", ref.getApiVersion());
        string(g, "fieldPath", ref.getFieldPath());
        g.writeEndObject();
      }
      if (f.origin().sourceComponent() != null || f.origin().sourceHost() != null) {
        g.writeObjectFieldStart("source");
        string(g, "component", f.origin().sourceComponent());
        string(g, "host", f.origin().sourceHost());
        g.writeEndObject();
      }
      string(g, "reportingComponent", f.origin().reportingComponent());
      string(g, "reportingInstance", f.origin().reportingInstance());
      string(g, "action", f.what().action());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return new ExportDocument(
        f.id(),
        f.times().count(),
        dayOf(f.times().firstTimestamp()),
        "Warning".equals(f.what().type()),
        f.what().reason(),
        out.toString());
  }

  /** The event's UID, or a name-based UUID of host, namespace and name when it has none. */
  static String idOf(ObjectMeta meta, String host) {
    String uid = meta.getUid();
    if (uid != null && !uid.isEmpty()) {
      return uid;
    }
    String key = "jkubelet-event:" + host + "/" + meta.getNamespace() + "/" + meta.getName();
    return nameUuid(key.getBytes(StandardCharsets.UTF_8)).toString();
  }

  /** MD5 digesters, one per thread: {@code MessageDigest.getInstance} per event is costly. */
  private static final ThreadLocal<MessageDigest> MD5 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("MD5");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("MD5 not supported", e);
            }
          });

  /** {@link UUID#nameUUIDFromBytes} (version 3) with a reused digester. */
  static UUID nameUuid(byte[] name) {
    byte[] md5 = MD5.get().digest(name);
    md5[6] &= 0x0f;
    md5[6] |= 0x30;
    md5[8] &= 0x3f;
    md5[8] |= (byte) 0x80;
    long msb = 0;
    long lsb = 0;
    for (int i = 0; i < 8; i++) {
      msb = (msb << 8) | (md5[i] & 0xff);
    }
    for (int i = 8; i < 16; i++) {
      lsb = (lsb << 8) | (md5[i] & 0xff);
    }
    return new UUID(msb, lsb);
  }

  /** The UTC day of an RFC 3339 time; the epoch day when it is missing or unreadable. */
  static LocalDate dayOf(String rfc3339) {
    if (rfc3339 == null || rfc3339.isEmpty()) {
      return LocalDate.EPOCH;
    }
    if (rfc3339.length() >= 20 && rfc3339.endsWith("Z") && rfc3339.charAt(10) == 'T') {
      // The API's form (UTC, "Z"): the date is the first ten characters.
      LocalDate day = utcDate(rfc3339);
      if (day != null) {
        return day;
      }
    }
    try {
      return LocalDate.ofInstant(Instant.parse(rfc3339), ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return LocalDate.EPOCH;
    }
  }

  /** {@code yyyy-MM-dd} at the start of {@code s}, or null. */
  private static LocalDate utcDate(String s) {
    int y = digits(s, 0, 4);
    int m = digits(s, 5, 7);
    int d = digits(s, 8, 10);
    if (y < 0 || m < 1 || m > 12 || d < 1 || s.charAt(4) != '-' || s.charAt(7) != '-') {
      return null;
    }
    try {
      return LocalDate.of(y, m, d);
    } catch (java.time.DateTimeException e) {
      return null;
    }
  }

  private static int digits(String s, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  static String micro(MicroTime t) {
    return t == null || t.getTime() == null || t.getTime().isEmpty() ? null : t.getTime();
  }

  static String firstNonEmpty(String a, String b) {
    return a != null && !a.isEmpty() ? a : b;
  }

  private static void string(JsonGenerator g, String field, String value) throws IOException {
    if (value != null && !value.isEmpty()) {
      g.writeStringField(field, value);
    }
  }
}
