package io.jkubelet.agent.credentials;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Registry locations as upstream's keyring reads them: Go's {@code url.Parse} of {@code "https://"
 * + location} cut down to what the keyring uses (host with port, and the unescaped path), and
 * {@code URLsMatch}: same port, same number of host parts, the target's path starting with the
 * glob's, and each host part matching by {@code filepath.Match}. Pure functions.
 */
final class RegistryUrls {
  private RegistryUrls() {}

  /** The host (with its port, if any) and the path of a location without scheme. */
  record Url(String host, String path) {
    /** The host's dot-separated parts, without the port. */
    List<String> hostParts() {
      return List.of(splitHostPort()[0].split("\\.", -1));
    }

    /** The port, or "" (as Go's {@code net.SplitHostPort}, falling back to the whole host). */
    String port() {
      return splitHostPort()[1];
    }

    private String[] splitHostPort() {
      String h = host;
      if (h.startsWith("[")) {
        int end = h.indexOf(']');
        if (end > 0 && h.length() > end + 1 && h.charAt(end + 1) == ':') {
          return new String[] {h.substring(1, end), h.substring(end + 2)};
        }
        return new String[] {h, ""};
      }
      int colon = h.lastIndexOf(':');
      if (colon < 0 || h.indexOf(':') != colon) { // none, or too many colons: no port
        return new String[] {h, ""};
      }
      return new String[] {h.substring(0, colon), h.substring(colon + 1)};
    }
  }

  /**
   * Parses a location without scheme, as Go parses {@code "https://" + location}.
   *
   * @throws IllegalArgumentException when Go's parser would refuse it (a bad port, a bad escape, a
   *     character a host may not hold)
   */
  static Url parse(String location) {
    String rest = location;
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      rest = rest.substring(0, hash);
    }
    int query = rest.indexOf('?');
    if (query >= 0) {
      rest = rest.substring(0, query);
    }
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    String host = authority.substring(authority.lastIndexOf('@') + 1);
    checkHost(host);
    return new Url(unescape(host), unescape(path));
  }

  /** Whether {@code target} matches the glob location, as upstream's {@code URLsMatchStr}. */
  static boolean matches(String glob, String target) {
    Url g;
    Url t;
    try {
      g = parse(glob);
      t = parse(target);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (!g.port().equals(t.port())) {
      return false;
    }
    List<String> globParts = g.hostParts();
    List<String> targetParts = t.hostParts();
    if (globParts.size() != targetParts.size() || !t.path().startsWith(g.path())) {
      return false;
    }
    for (int i = 0; i < globParts.size(); i++) {
      if (!globMatch(globParts.get(i), targetParts.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Go's {@code filepath.Match} on Unix: {@code *} any run of non-{@code /} characters, {@code ?}
   * one, {@code [...]} a class (ranges, {@code ^} to negate), {@code \} escapes. A malformed
   * pattern matches nothing.
   */
  static boolean globMatch(String pattern, String name) {
    try {
      return Pattern.compile(globRegex(pattern), Pattern.DOTALL).matcher(name).matches();
    } catch (IllegalArgumentException e) { // PatternSyntaxException too
      return false;
    }
  }

  private static String globRegex(String pattern) {
    StringBuilder re = new StringBuilder();
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i++);
      switch (c) {
        case '*' -> re.append("[^/]*");
        case '?' -> re.append("[^/]");
        case '\\' -> {
          if (i >= pattern.length()) {
            throw new IllegalArgumentException("bad pattern: trailing backslash");
          }
          re.append(quote(pattern.charAt(i++)));
        }
        case '[' -> i = charClass(pattern, i, re);
        default -> re.append(quote(c));
      }
    }
    return re.toString();
  }

  /** Appends the class that starts after the {@code [} at {@code i}; returns the index after it. */
  private static int charClass(String pattern, int i, StringBuilder re) {
    StringBuilder cls = new StringBuilder("[");
    if (i < pattern.length() && pattern.charAt(i) == '^') {
      cls.append('^');
      i++;
    }
    int ranges = 0;
    while (true) {
      if (i >= pattern.length()) {
        throw new PatternSyntaxException("unclosed class", pattern, i);
      }
      char c = pattern.charAt(i);
      if (c == ']' && ranges > 0) {
        re.append(cls).append(']');
        return i + 1;
      }
      int[] lo = classChar(pattern, i);
      i = lo[1];
      cls.append(quote((char) lo[0]));
      if (i < pattern.length() && pattern.charAt(i) == '-') {
        int[] hi = classChar(pattern, i + 1);
        if (hi[0] < lo[0]) {
          throw new PatternSyntaxException("bad range", pattern, i);
        }
        i = hi[1];
        cls.append('-').append(quote((char) hi[0]));
      }
      ranges++;
    }
  }

  /** One character of a class, escaped or not: {value, next index}. */
  private static int[] classChar(String pattern, int i) {
    if (i >= pattern.length()) {
      throw new PatternSyntaxException("unclosed class", pattern, i);
    }
    char c = pattern.charAt(i);
    if (c == '-' || c == ']') {
      throw new PatternSyntaxException("bad class", pattern, i);
    }
    if (c == '\\') {
      if (i + 1 >= pattern.length()) {
        throw new PatternSyntaxException("trailing backslash", pattern, i);
      }
      return new int[] {pattern.charAt(i + 1), i + 2};
    }
    return new int[] {c, i + 1};
  }

  private static String quote(char c) {
    return Character.isLetterOrDigit(c) ? String.valueOf(c) : String.format("\\x{%x}", (int) c);
  }

  /** Go's check of a host: an optional numeric port after the last colon, no forbidden chars. */
  private static void checkHost(String host) {
    String h = host;
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      if (end < 0) {
        throw new IllegalArgumentException("missing ']' in host");
      }
      h = h.substring(end + 1);
      if (!h.isEmpty() && !h.startsWith(":")) {
        throw new IllegalArgumentException("invalid port after host");
      }
    }
    int colon = h.lastIndexOf(':');
    if (colon >= 0) {
      String port = h.substring(colon + 1);
      for (char c : port.toCharArray()) {
        if (c < '0' || c > '9') {
          throw new IllegalArgumentException("invalid port \":" + port + "\" after host");
        }
      }
    }
    for (char c : host.toCharArray()) {
      boolean ok =
          Character.isLetterOrDigit(c) || c >= 0x80 || "-_.~!$&'()*+,;=:[]<>\"%".indexOf(c) >= 0;
      if (!ok) {
        throw new IllegalArgumentException("invalid character \"" + c + "\" in host name");
      }
    }
  }

  /** Go's percent-unescaping; a bad escape is an error. */
  private static String unescape(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '%') {
        if (i + 2 >= bytes.length) {
          throw new IllegalArgumentException("invalid URL escape");
        }
        int hi = Character.digit(bytes[i + 1], 16);
        int lo = Character.digit(bytes[i + 2], 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("invalid URL escape");
        }
        out.write(hi * 16 + lo);
        i += 2;
      } else {
        out.write(bytes[i]);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
