package io.jkubelet.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Map;

/**
 * Go-style durations as Kubernetes configuration files write them ({@code metav1.Duration}).
 *
 * <p>{@link #parse} accepts what Go's {@code time.ParseDuration} accepts, except negative values: a
 * sequence of decimal numbers, each with an optional fraction and a unit, such as {@code "20s"},
 * {@code "1m30s"}, {@code "1.5s"}, {@code "500ms"} or {@code "1h"}. Units are {@code ns}, {@code
 * us} (also {@code µs}), {@code ms}, {@code s}, {@code m} and {@code h}; the bare string {@code
 * "0"} is also accepted. {@link #format} writes exactly what Go's {@code time.Duration.String()}
 * writes, for example {@code "20s"}, {@code "1m0s"}, {@code "1h30m0s"}, {@code "1.5s"}, {@code
 * "500ms"}, {@code "0s"}, so {@code parse(format(d))} equals {@code d}. Precision is one nanosecond
 * and the range is that of Go's {@code time.Duration} (a signed 64-bit count of nanoseconds).
 */
public final class Durations {

  private static final long NANOS_PER_MICRO = 1_000L;
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND;

  private static final Map<String, Long> UNIT_NANOS =
      Map.of(
          "ns", 1L,
          "us", NANOS_PER_MICRO,
          "µs", NANOS_PER_MICRO, // U+00B5 micro sign, as Go writes it
          "μs", NANOS_PER_MICRO, // U+03BC Greek small letter mu
          "ms", NANOS_PER_MILLI,
          "s", NANOS_PER_SECOND,
          "m", NANOS_PER_MINUTE,
          "h", 60 * NANOS_PER_MINUTE);

  private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

  private Durations() {}

  /**
   * Parses a Go-style duration.
   *
   * @param text the duration, e.g. {@code "1m30s"}; no surrounding whitespace
   * @return the duration, never negative
   * @throws IllegalArgumentException if {@code text} is null, empty, malformed, negative or larger
   *     than Go can represent; the message quotes {@code text} and says what is expected, e.g.
   *     {@code invalid duration "abc": expected a number with a unit (ns, us, ms, s, m, h), e.g.
   *     "20s" or "1m30s"}
   */
  public static Duration parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("invalid duration: expected a string such as \"20s\"");
    }
    String s = text;
    if (s.startsWith("-")) {
      throw invalid(text, "must not be negative");
    }
    if (s.startsWith("+")) {
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      throw malformed(text);
    }
    BigDecimal total = BigDecimal.ZERO;
    int i = 0;
    while (i < s.length()) {
      int numberStart = i;
      while (i < s.length() && isDigitOrDot(s.charAt(i))) {
        i++;
      }
      String number = s.substring(numberStart, i);
      int unitStart = i;
      while (i < s.length() && !isDigitOrDot(s.charAt(i))) {
        i++;
      }
      Long unit = UNIT_NANOS.get(s.substring(unitStart, i));
      if (unit == null || !isDecimal(number)) {
        throw malformed(text);
      }
      // Like Go, each component is truncated to whole nanoseconds on its own.
      total =
          total.add(
              new BigDecimal(number)
                  .multiply(BigDecimal.valueOf(unit))
                  .setScale(0, RoundingMode.DOWN));
      if (total.compareTo(MAX_NANOS) > 0) {
        throw invalid(text, "must be at most " + format(Duration.ofNanos(Long.MAX_VALUE)));
      }
    }
    return Duration.ofNanos(total.longValueExact());
  }

  /**
   * Formats a duration the way Go's {@code time.Duration.String()} does: {@code "0s"} for zero;
   * below one second a single unit ({@code ns}, {@code µs} or {@code ms}) with a fraction if
   * needed; otherwise hours, minutes and seconds with the leading zero units left out ({@code
   * "20s"}, {@code "1m0s"}, {@code "1h0m0s"}, {@code "1m30.5s"}). Negative durations get a leading
   * {@code -}.
   *
   * @throws IllegalArgumentException if {@code duration} does not fit in a signed 64-bit count of
   *     nanoseconds
   * @throws NullPointerException if {@code duration} is null
   */
  public static String format(Duration duration) {
    long nanos;
    try {
      nanos = duration.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("duration " + duration + " is too large to format", e);
    }
    if (nanos == 0) {
      return "0s";
    }
    String sign = nanos < 0 ? "-" : "";
    // Unsigned magnitude, so that Long.MIN_VALUE works too.
    long u = nanos < 0 ? -nanos : nanos;
    if (Long.compareUnsigned(u, NANOS_PER_SECOND) < 0) {
      if (u < NANOS_PER_MICRO) {
        return sign + u + "ns";
      }
      if (u < NANOS_PER_MILLI) {
        return sign + fraction(u, 3) + "µs";
      }
      return sign + fraction(u, 6) + "ms";
    }
    StringBuilder out = new StringBuilder();
    out.append(fraction(Long.remainderUnsigned(u, NANOS_PER_MINUTE), 9)).append('s');
    long minutes = Long.divideUnsigned(u, NANOS_PER_MINUTE);
    if (minutes > 0) {
      out.insert(0, (minutes % 60) + "m");
      long hours = minutes / 60;
      if (hours > 0) {
        out.insert(0, hours + "h");
      }
    }
    return sign + out;
  }

  /** {@code value / 10^digits} in decimal, without trailing zeros in the fraction. */
  private static String fraction(long value, int digits) {
    BigDecimal decimal =
        new BigDecimal(Long.toUnsignedString(value)).movePointLeft(digits).stripTrailingZeros();
    return decimal.scale() <= 0 ? decimal.toBigInteger().toString() : decimal.toPlainString();
  }

  private static boolean isDigitOrDot(char c) {
    return (c >= '0' && c <= '9') || c == '.';
  }

  /** Digits, optionally with one dot, and at least one digit: "1", "1.5", ".5", "1." as in Go. */
  private static boolean isDecimal(String number) {
    int dot = number.indexOf('.');
    return number.chars().anyMatch(c -> c != '.') && (dot < 0 || number.indexOf('.', dot + 1) < 0);
  }

  private static IllegalArgumentException malformed(String text) {
    return invalid(
        text, "expected a number with a unit (ns, us, ms, s, m, h), e.g. \"20s\" or \"1m30s\"");
  }

  private static IllegalArgumentException invalid(String text, String problem) {
    return new IllegalArgumentException("invalid duration \"" + text + "\": " + problem);
  }
}
