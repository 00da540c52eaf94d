package io.jkubelet.agent.util;

/**
 * Go's {@code %q} ({@code strconv.Quote}) for the strings upstream quotes in messages and files.
 */
public final class GoQuote {
  private GoQuote() {}

  /**
   * {@code s} in double quotes with Go's escapes for quotes, backslashes and control characters;
   * null reads as "".
   */
  public static String quote(String s) {
    String t = s == null ? "" : s;
    StringBuilder b = new StringBuilder(t.length() + 2).append('"');
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
        case 7 -> b.append("\\a");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        case 11 -> b.append("\\v");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
