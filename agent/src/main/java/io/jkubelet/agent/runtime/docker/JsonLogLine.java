package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes one line of Docker's json-file log, {@code
 * {"log":"...","stream":"stdout","time":"2016-10-20T18:39:20.57606443Z"}}, into its content bytes,
 * stream and time, with its time ({@link LogTime}).
 *
 * <p>The content is unescaped as Go's {@code encoding/json} does it (which is how the engine's log
 * API and upstream's {@code parseDockerJSONLog} read it): escapes including {@code \\u} with
 * surrogate pairs, a lone surrogate and every byte of invalid UTF-8 become U+FFFD. Lines of the
 * engine's fixed shape take a hand-written path; any other shape (an {@code attrs} field, keys in
 * another order, whitespace) goes through Jackson's streaming parser.
 *
 * <p>Not thread-safe: one per reader. The results of the last {@link #decode} are its fields.
 */
final class JsonLogLine {
  /** At most this many output bytes per input byte (an invalid byte becomes U+FFFD's three). */
  static final int MAX_EXPANSION = 3;

  private static final byte[] LOG = bytes("{\"log\":\"");
  private static final byte[] MIDDLE_OUT = bytes(",\"stream\":\"stdout\",\"time\":\"");
  private static final byte[] MIDDLE_ERR = bytes(",\"stream\":\"stderr\",\"time\":\"");
  private static final JsonFactory JSON = new JsonFactory();

  /** Bytes that stand for themselves in a JSON string: printable ASCII but quote and backslash. */
  private static final boolean[] PLAIN = new boolean[256];

  static {
    for (int c = 0x20; c < 0x7f; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  /** The stream of the last decoded line. */
  boolean stderr;

  /** The time of the last decoded line. */
  final LogTime time = new LogTime();

  private CharsetEncoder encoder;

  /** {@link #scan}: the input ends before the line does; read more and scan it again. */
  static final int MORE = -2;

  /** {@link #scan}: the output has no room for the line; make room and scan it again. */
  static final int ROOM = -3;

  /** {@link #scan}: not the engine's own shape; find the line's end and {@link #decode} it. */
  static final int OTHER = -1;

  /** After a successful {@link #scan}: where the next line starts. */
  int next;

  /** Where {@link #unicode} stopped writing. */
  private int written;

  /**
   * Decodes the complete line {@code line[from, to)} (without its newline) and writes its content
   * to {@code out} from {@code outPos}, which must have room for {@link #MAX_EXPANSION} times the
   * line's length. Returns the position after the content, or -1 when the line is not a log entry
   * (then what it wrote means nothing).
   */
  int decode(byte[] line, int from, int to, byte[] out, int outPos) {
    int end = fast(line, from, to, true, out, outPos, out.length);
    return end >= 0 ? end : generic(line, from, to, out, outPos);
  }

  /**
   * Decodes the line starting at {@code b[from]}, within {@code b[from, limit)}, if it has the
   * engine's own shape, in one pass that also finds its end ({@link #next}): the content to {@code
   * out} from {@code outPos}; returns the position after it, or {@link #MORE}, {@link #ROOM} or
   * {@link #OTHER}.
   */
  int scan(byte[] b, int from, int limit, byte[] out, int outPos) {
    return fast(b, from, limit, false, out, outPos, out.length);
  }

  /**
   * The engine's own shape. {@code whole}: {@code limit} ends the line (no newline follows), else a
   * newline must follow within it.
   */
  private int fast(
      byte[] b, int from, int limit, boolean whole, byte[] out, int outPos, int outEnd) {
    int cut = whole ? OTHER : MORE;
    if (from + LOG.length > limit) {
      return cut;
    }
    if (!at(b, from, limit, LOG)) {
      return OTHER;
    }
    int i = from + LOG.length;
    int o = outPos;
    int room = outEnd - 4; // a code point's bytes always fit below outEnd
    while (true) {
      // NOTE: the launcher runs the client compiler only, which neither unrolls nor vectorizes:
      // a run of plain bytes is found with one table look-up per byte and copied at once.
      int stop = Math.min(limit, i + (room - o));
      int run = i;
      while (i < stop && PLAIN[b[i] & 0xff]) {
        i++;
      }
      System.arraycopy(b, run, out, o, i - run);
      o += i - run;
      if (i >= limit) {
        return cut;
      }
      if (o >= room) {
        return ROOM;
      }
      byte c = b[i];
      if (c == '"') {
        break;
      } else if (c == '\\') {
        if (i + 1 >= limit) {
          return cut;
        }
        byte e = b[i + 1];
        if (e == 'u') {
          i = unicode(b, i, limit, whole, out, o);
          if (i < 0) {
            return i;
          }
          o = written;
          continue;
        }
        int u = unescape(e);
        if (u < 0) {
          return OTHER;
        }
        out[o++] = (byte) u;
        i += 2;
      } else if (c >= 0) {
        out[o++] = c; // a control byte, which the engine escapes but Go's decoder takes
        i++;
      } else {
        if (i + 4 > limit && !whole) {
          return MORE; // a sequence may be cut
        }
        int n = validUtf8(b, i, limit);
        if (n == 0) {
          o = utf8(0xfffd, out, o);
          i++;
        } else {
          System.arraycopy(b, i, out, o, n);
          o += n;
          i += n;
        }
      }
    }
    return tail(b, i + 1, limit, whole, o);
  }

  /**
   * The {@code \\uXXXX} escape at {@code i} (with the low surrogate that may follow) as UTF-8 at
   * {@code o}, up to {@link #written}; returns where the input goes on, or {@link #MORE} or {@link
   * #OTHER}.
   */
  private int unicode(byte[] b, int i, int limit, boolean whole, byte[] out, int o) {
    if (i + 12 > limit && !whole) {
      return MORE; // a surrogate pair may be cut
    }
    int cp = hex4(b, i + 2, limit);
    if (cp < 0) {
      return OTHER;
    }
    i += 6;
    if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < limit && b[i] == '\\' && b[i + 1] == 'u') {
      int low = hex4(b, i + 2, limit);
      if (low >= 0xdc00 && low < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
      }
    }
    written = utf8(cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp, out, o);
    return i;
  }

  /** After the content: the stream, the time and the line's end. */
  private int tail(byte[] b, int i, int limit, boolean whole, int o) {
    int cut = whole ? OTHER : MORE;
    if (i + MIDDLE_OUT.length > limit) {
      return cut;
    }
    if (at(b, i, limit, MIDDLE_OUT)) {
      stderr = false;
    } else if (at(b, i, limit, MIDDLE_ERR)) {
      stderr = true;
    } else {
      return OTHER;
    }
    i += MIDDLE_OUT.length;
    int q = i;
    while (q < limit && b[q] != '"' && q - i < 40) {
      q++;
    }
    if (q + 2 > limit) {
      return cut;
    }
    if (b[q] != '"' || b[q + 1] != '}' || !time.parse(b, i, q)) {
      return OTHER;
    }
    if (whole) {
      next = limit;
      return q + 2 == limit ? o : OTHER;
    }
    if (q + 2 == limit) {
      return MORE;
    }
    if (b[q + 2] != '\n') {
      return OTHER;
    }
    next = q + 3;
    return o;
  }

  /** Any JSON object with {@code log}, {@code stream} and {@code time}; -1 if it is not one. */
  private int generic(byte[] b, int from, int to, byte[] out, int outPos) {
    String text = null;
    String stream = null;
    String stamp = null;
    try (JsonParser p = JSON.createParser(b, from, to - from)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return -1;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "log" -> text = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "stream" -> stream = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "time" -> stamp = value == JsonToken.VALUE_STRING ? p.getText() : null;
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      return -1;
    }
    if (text == null || stamp == null || !("stdout".equals(stream) || "stderr".equals(stream))) {
      return -1;
    }
    byte[] t = stamp.getBytes(StandardCharsets.US_ASCII);
    if (!time.parse(t, 0, t.length)) {
      return -1;
    }
    stderr = stream.equals("stderr");
    ByteBuffer dst = ByteBuffer.wrap(out, outPos, out.length - outPos);
    if (encoder == null) {
      encoder =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPLACE)
              .onUnmappableCharacter(CodingErrorAction.REPLACE)
              .replaceWith(new byte[] {(byte) 0xef, (byte) 0xbf, (byte) 0xbd});
    }
    encoder.reset();
    if (encoder.encode(CharBuffer.wrap(text), dst, true).isOverflow()
        || encoder.flush(dst).isOverflow()) {
      return -1; // cannot happen: Jackson gives at most one char per input byte
    }
    return dst.position();
  }

  private static int unescape(byte e) {
    return switch (e) {
      case '"', '\\', '/' -> e;
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      default -> -1;
    };
  }

  private static int hex4(byte[] b, int from, int to) {
    if (from + 4 > to) {
      return -1;
    }
    int v = 0;
    for (int i = from; i < from + 4; i++) {
      int c = b[i];
      int d =
          c >= '0' && c <= '9'
              ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) {
        return -1;
      }
      v = v << 4 | d;
    }
    return v;
  }

  /**
   * The length of the valid UTF-8 sequence at {@code i} (a non-ASCII lead byte), or 0 where Go's
   * {@code utf8.DecodeRune} finds none (bad lead or continuation, overlong, surrogate, beyond
   * U+10FFFF, cut short).
   */
  static int validUtf8(byte[] b, int i, int to) {
    int c = b[i] & 0xff;
    if (c >= 0xc2 && c <= 0xdf) {
      return i + 1 < to && cont(b[i + 1]) ? 2 : 0;
    }
    if (c >= 0xe0 && c <= 0xef) {
      if (i + 2 >= to || !cont(b[i + 2])) {
        return 0;
      }
      int c1 = b[i + 1] & 0xff;
      int lo = c == 0xe0 ? 0xa0 : 0x80;
      int hi = c == 0xed ? 0x9f : 0xbf;
      return c1 >= lo && c1 <= hi ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
      if (i + 3 >= to || !cont(b[i + 2]) || !cont(b[i + 3])) {
        return 0;
      }
      int c1 = b[i + 1] & 0xff;
      int lo = c == 0xf0 ? 0x90 : 0x80;
      int hi = c == 0xf4 ? 0x8f : 0xbf;
      return c1 >= lo && c1 <= hi ? 4 : 0;
    }
    return 0;
  }

  private static boolean cont(byte b) {
    return (b & 0xc0) == 0x80;
  }

  private static int utf8(int cp, byte[] out, int o) {
    if (cp < 0x80) {
      out[o++] = (byte) cp;
    } else if (cp < 0x800) {
      out[o++] = (byte) (0xc0 | cp >> 6);
      out[o++] = (byte) (0x80 | cp & 0x3f);
    } else if (cp < 0x10000) {
      out[o++] = (byte) (0xe0 | cp >> 12);
      out[o++] = (byte) (0x80 | cp >> 6 & 0x3f);
      out[o++] = (byte) (0x80 | cp & 0x3f);
    } else {
      out[o++] = (byte) (0xf0 | cp >> 18);
      out[o++] = (byte) (0x80 | cp >> 12 & 0x3f);
      out[o++] = (byte) (0x80 | cp >> 6 & 0x3f);
      out[o++] = (byte) (0x80 | cp & 0x3f);
    }
    return o;
  }

  private static boolean at(byte[] b, int i, int to, byte[] token) {
    return i + token.length <= to && Arrays.equals(b, i, i + token.length, token, 0, token.length);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
