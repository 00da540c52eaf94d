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
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    return decode(b, 0, b.length);
  }

  /**
   * Parses the line {@code buf[from, to)} (without its {@code \n}) straight from the bytes read;
   * throws IllegalArgumentException if it is not one.
   */
  static ExportDocument decode(byte[] buf, int from, int to) {
    int[] tabs = new int[5];
    int at = from;
    for (int i = 0; i < 5; i++) {
      while (at < to && buf[at] != '\t') {
        at++;
      }
      if (at == to) {
        throw new IllegalArgumentException("spool record has " + i + " fields of 6");
      }
      tabs[i] = at++;
    }
    byte type = buf[from];
    if (tabs[0] != from + 1 || (type != 'W' && type != 'N')) {
      throw new IllegalArgumentException("spool record type is not W or N");
    }
    return new ExportDocument(
        ascii(buf, tabs[2] + 1, tabs[3]),
        Long.parseLong(ascii(buf, tabs[0] + 1, tabs[1])),
        LocalDate.parse(ascii(buf, tabs[1] + 1, tabs[2])),
        type == 'W',
        new String(buf, tabs[3] + 1, tabs[4] - tabs[3] - 1, StandardCharsets.UTF_8),
        new String(buf, tabs[4] + 1, to - tabs[4] - 1, StandardCharsets.UTF_8));
  }

  private static String ascii(byte[] buf, int from, int to) {
    return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
  }

  /** Whether an encoded line (at {@code offset} of {@code buf}) is a Warning's. */
  static boolean isWarning(byte[] buf, int offset) {
    return buf[offset] == 'W';
  }
}
