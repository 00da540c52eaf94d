package io.jkubelet.agent.export;

import java.time.LocalDate;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One version of one event, as it is exported: the document id (derived from the event's UID, so
 * every version of an event lands on the same document), its version (the event's count, so a stale
 * resend never overwrites a newer count), the day of its first occurrence (which picks the daily
 * index, the same for every version), whether it is a Warning (the spool keeps those longest), its
 * reason (for drop counts) and its JSON body.
 *
 * @param id the document id: the event's UID, or a name-based UUID for events that have none yet
 * @param version the event's count, at least 1; sent as an {@code external_gte} version
 * @param day the UTC day of the event's first occurrence
 * @param warning whether the event's type is Warning
 * @param reason the event's reason, "" when it has none
 * @param json the document, compact JSON on one line
 */
public record ExportDocument(
    String id, long version, LocalDate day, boolean warning, String reason, String json) {
  /** Ids, reasons and index names never hold a tab or a line break: the spool's separators. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,512}");

  public ExportDocument {
    Objects.requireNonNull(day, "day");
    Objects.requireNonNull(json, "json");
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("not a document id: " + id);
    }
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1, got " + version);
    }
    reason = reason == null ? "" : reason.replaceAll("[\\t\\r\\n]", "_");
    if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("document " + id + " is not on one line");
    }
  }
}
