package io.jkubelet.agent.export;

import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    @Nullable String id,
    long version,
    LocalDate day,
    boolean warning,
    @Nullable String reason,
    String json) {

  public ExportDocument {
    Records.requireNonNull(ExportDocument.class, day, json);
    if (!isId(id)) {
      throw new IllegalArgumentException("not a document id: " + id);
    }
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1, got " + version);
    }
    reason = reason == null ? "" : withoutSeparators(reason);
    if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("document " + id + " is not on one line");
    }
  }

  /**
   * Ids never hold a tab or a line break, the spool's separators: {@code [A-Za-z0-9._:-]{1,512}}.
   * Checked by hand: this runs for every event exported and every one read back from the spool.
   */
  private static boolean isId(String id) {
    if (id == null || id.isEmpty() || id.length() > 512) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == ':'
              || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** The reason with tabs and line breaks replaced by {@code _}. */
  private static String withoutSeparators(String reason) {
    for (int i = 0; i < reason.length(); i++) {
      char c = reason.charAt(i);
      if (c == '\t' || c == '\r' || c == '\n') {
        return reason.replace('\t', '_').replace('\r', '_').replace('\n', '_');
      }
    }
    return reason;
  }

  /**
   * Keeps only the newest version of each document of a batch (the last of equal ones), where it
   * stands in the batch: in a crash loop most of a batch may be count bumps of a few events, and
   * the server would write each version over the previous one.
   */
  static List<ExportDocument> newestVersions(List<ExportDocument> docs) {
    Map<String, Integer> newest = new HashMap<>(docs.size() * 2);
    for (int i = 0; i < docs.size(); i++) {
      ExportDocument d = docs.get(i);
      Integer j = newest.get(d.id());
      if (j == null || docs.get(j).version() <= d.version()) {
        newest.put(d.id(), i);
      }
    }
    if (newest.size() == docs.size()) {
      return docs;
    }
    List<ExportDocument> out = new ArrayList<>(newest.size());
    for (int i = 0; i < docs.size(); i++) {
      if (newest.get(docs.get(i).id()) == i) {
        out.add(docs.get(i));
      }
    }
    return out;
  }
}
