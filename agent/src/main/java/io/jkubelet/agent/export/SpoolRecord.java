package io.jkubelet.agent.export;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;

/**
 * One line of a spool segment: {@code T<tab>version<tab>yyyy-MM-dd<tab>id<tab>reason<tab>json\n},
 * {@code T} being {@code W} for a Warning and {@code N} otherwise. The prefix is read without a
 * JSON parser, so a replay costs a split per record; the JSON never holds a tab or a line break
 * (Jackson escapes them), nor do ids and reasons ({@link ExportDocument} checks).
 */
final class SpoolRecord {
  private SpoolRecord() {}

  static byte[] encode(ExportDocument d) {
    String line =
        (d.warning() ? "W" : "N")
            + '\t'
            + d.version()
            + '\t'
            + d.day()
            + '\t'
            + d.id()
            + '\t'
            + d.reason()
            + '\t'
            + d.json()
            + '\n';
    return line.getBytes(StandardCharsets.UTF_8);
  }

  /** Parses a line without its {@code \n}; throws IllegalArgumentException if it is not one. */
  static ExportDocument decode(String line) {
    int[] tabs = new int[5];
    int from = 0;
    for (int i = 0; i < 5; i++) {
      int t = line.indexOf('\t', from);
      if (t < 0) {
        throw new IllegalArgumentException("spool record has " + i + " fields of 6");
      }
      tabs[i] = t;
      from = t + 1;
    }
    char type = line.charAt(0);
    if (tabs[0] != 1 || (type != 'W' && type != 'N')) {
      throw new IllegalArgumentException("spool record type is not W or N");
    }
    return new ExportDocument(
        line.substring(tabs[2] + 1, tabs[3]),
        Long.parseLong(line, tabs[0] + 1, tabs[1], 10),
        LocalDate.parse(line.substring(tabs[1] + 1, tabs[2])),
        type == 'W',
        line.substring(tabs[3] + 1, tabs[4]),
        line.substring(tabs[4] + 1));
  }

  /** Whether an encoded line (at {@code offset} of {@code buf}) is a Warning's. */
  static boolean isWarning(byte[] buf, int offset) {
    return buf[offset] == 'W';
  }
}
