package io.jkubelet.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes quantities ({@code resource.ParseQuantity}): a decimal number with an optional binary
 * ({@code Ki Mi Gi Ti Pi Ei}), decimal ({@code n u m k M G T P E}) or exponent ({@code e3}) suffix.
 * Pure.
 */
public final class Quantities {
  private Quantities() {}

  private static final Pattern QUANTITY =
      Pattern.compile("([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))([eE][+-]?[0-9]+|[a-zA-Z]*)");

  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("", BigDecimal.ONE),
          Map.entry("n", new BigDecimal("1e-9")),
          Map.entry("u", new BigDecimal("1e-6")),
          Map.entry("m", new BigDecimal("1e-3")),
          Map.entry("k", new BigDecimal("1e3")),
          Map.entry("M", new BigDecimal("1e6")),
          Map.entry("G", new BigDecimal("1e9")),
          Map.entry("T", new BigDecimal("1e12")),
          Map.entry("P", new BigDecimal("1e15")),
          Map.entry("E", new BigDecimal("1e18")),
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)));

  /**
   * The value of {@code text}.
   *
   * @throws IllegalArgumentException with upstream's message when it is not a quantity
   */
  public static BigDecimal parse(String text) {
    Matcher m = QUANTITY.matcher(text == null ? "" : text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "quantities must match the regular expression"
              + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got \""
              + text
              + "\"");
    }
    BigDecimal number = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
    String suffix = m.group(2);
    if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
      return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    }
    BigDecimal scale = SUFFIXES.get(suffix);
    if (scale == null) {
      throw new IllegalArgumentException("unable to parse quantity's suffix in \"" + text + "\"");
    }
    return number.multiply(scale);
  }

  /** The value rounded up to a whole number (upstream's {@code Value()}), capped at Long range. */
  public static long ceil(BigDecimal v) {
    BigDecimal r = v.setScale(0, RoundingMode.CEILING);
    if (r.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      return Long.MAX_VALUE;
    }
    return r.longValueExact();
  }

  /** Thousandths of the value rounded up (upstream's {@code MilliValue()}). */
  public static long milli(BigDecimal v) {
    return ceil(v.scaleByPowerOfTen(3));
  }

  /**
   * A byte count as upstream's {@code resource.BinarySI} writes it: with the largest binary suffix
   * that divides it exactly, e.g. {@code 16374784Ki}, {@code 2Gi}, {@code 1536}. The one
   * definition: the Node's capacity and allocatable, hugepage sizes and eviction messages use it.
   */
  public static String binarySi(long bytes) {
    String[] suffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (bytes == 0) {
      return "0";
    }
    int i = 0;
    long v = bytes;
    while (i < suffixes.length - 1 && v % 1024 == 0) {
      v /= 1024;
      i++;
    }
    return v + suffixes[i];
  }
}
