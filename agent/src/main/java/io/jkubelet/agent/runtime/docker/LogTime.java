package io.jkubelet.agent.runtime.docker;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;

/**
 * A json-file log entry's time: parsed from Go's lenient RFC 3339 with up to 9 fraction digits
 * ({@code RFC3339Nano}, as the engine writes it), written as upstream's {@code RFC3339NanoFixed} in
 * UTC with a space, as {@code docker logs --timestamps} and the kubelet write it.
 *
 * <p>Not thread-safe: one per reader. The last parsed time is {@link #seconds} and {@link #nanos}.
 */
final class LogTime {
  /** The length of {@link #writeStamp}'s output: {@code 2006-01-02T15:04:05.000000000Z } . */
  static final int STAMP_LENGTH = 31;

  private static final int MINUTE = 17;

  /** Seconds since the epoch of the last parsed time. */
  long seconds;

  /** Its nanoseconds. */
  int nanos;

  private final byte[] minute = new byte[MINUTE];
  private boolean minuteKnown;
  private long minuteSeconds;
  private long stampDay = Long.MIN_VALUE;
  private final byte[] stampDate = new byte[11];

  /**
   * Parses Go's lenient RFC 3339 with up to 9 fraction digits ({@code RFC3339Nano}, as the engine
   * writes it) into {@link #seconds} and {@link #nanos}; false if it is not one.
   */
  boolean parse(byte[] b, int from, int to) {
    if (to - from < 20) {
      return false;
    }
    // Lines come in time order: most share the last one's minute, parsed once.
    if (!(minuteKnown && Arrays.equals(b, from, from + MINUTE, minute, 0, MINUTE))
        && !parseMinute(b, from)) {
      return false;
    }
    int second = digits(b, from + 17, 2);
    if (second < 0 || second > 59) {
      return false;
    }
    int i = from + 19;
    int nano = 0;
    if (b[i] == '.') {
      i++;
      int start = i;
      while (i < to && b[i] >= '0' && b[i] <= '9') {
        if (i - start < 9) {
          nano = nano * 10 + (b[i] - '0');
        }
        i++;
      }
      if (i == start) {
        return false;
      }
      for (int k = i - start; k < 9; k++) {
        nano *= 10;
      }
    }
    int offset;
    if (i + 1 == to && (b[i] == 'Z' || b[i] == 'z')) {
      offset = 0;
    } else if (i + 6 == to && (b[i] == '+' || b[i] == '-') && b[i + 3] == ':') {
      int oh = digits(b, i + 1, 2);
      int om = digits(b, i + 4, 2);
      if ((oh | om) < 0) {
        return false;
      }
      offset = (oh * 3600 + om * 60) * (b[i] == '-' ? -1 : 1);
    } else {
      return false;
    }
    seconds = minuteSeconds + second - offset;
    nanos = nano;
    return true;
  }

  /** Parses {@code YYYY-MM-DDTHH:MM:} into {@link #minuteSeconds} and remembers it. */
  private boolean parseMinute(byte[] b, int from) {
    minuteKnown = false;
    if (b[from + 4] != '-'
        || b[from + 7] != '-'
        || (b[from + 10] != 'T' && b[from + 10] != 't')
        || b[from + 13] != ':'
        || b[from + 16] != ':') {
      return false;
    }
    int year = digits(b, from, 4);
    int month = digits(b, from + 5, 2);
    int day = digits(b, from + 8, 2);
    int hour = digits(b, from + 11, 2);
    int min = digits(b, from + 14, 2);
    if ((year | month | day | hour | min) < 0 || hour > 23 || min > 59) {
      return false;
    }
    try {
      minuteSeconds = LocalDate.of(year, month, day).toEpochDay() * 86400 + hour * 3600 + min * 60;
    } catch (java.time.DateTimeException e) {
      return false;
    }
    System.arraycopy(b, from, minute, 0, MINUTE);
    minuteKnown = true;
    return true;
  }

  /** Writes the last parsed time and a space, {@link #STAMP_LENGTH} bytes, in UTC. */
  void writeStamp(byte[] out, int pos) {
    long day = Math.floorDiv(seconds, 86400);
    int sod = (int) Math.floorMod(seconds, 86400);
    if (day != stampDay) {
      byte[] d = (LocalDate.ofEpochDay(day).toString() + "T").getBytes(StandardCharsets.US_ASCII);
      if (d.length != stampDate.length) {
        d = "0000-01-01T".getBytes(StandardCharsets.US_ASCII); // years beyond 4 digits
      }
      System.arraycopy(d, 0, stampDate, 0, stampDate.length);
      stampDay = day;
    }
    System.arraycopy(stampDate, 0, out, pos, stampDate.length);
    int p = pos + stampDate.length;
    p = two(sod / 3600, out, p);
    out[p++] = ':';
    p = two(sod / 60 % 60, out, p);
    out[p++] = ':';
    p = two(sod % 60, out, p);
    out[p++] = '.';
    int v = nanos;
    for (int k = 8; k >= 0; k--) {
      out[p + k] = (byte) ('0' + v % 10);
      v /= 10;
    }
    p += 9;
    out[p++] = 'Z';
    out[p] = ' ';
  }

  private static int two(int v, byte[] out, int p) {
    out[p] = (byte) ('0' + v / 10);
    out[p + 1] = (byte) ('0' + v % 10);
    return p + 2;
  }

  private static int digits(byte[] b, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }
}
