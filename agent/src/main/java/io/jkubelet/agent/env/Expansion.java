package io.jkubelet.agent.env;

import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@code $(VAR)} expansion, a port of upstream's {@code third_party/forked/golang/expansion}:
 * {@code $$} is an escaped {@code $}, a reference to an unknown name stays as written, and an
 * unclosed {@code $(} is kept. Stateless.
 *
 * @see <a
 *     href="https://github.com/kubernetes/kubernetes/blob/v1.20.2/third_party/forked/golang/expansion/expand.go">expand.go</a>
 */
public final class Expansion {
  private Expansion() {}

  /** A mapping that looks a name up in each map in turn, else gives the reference back. */
  @SafeVarargs
  public static UnaryOperator<String> mappingFor(Map<String, String>... contexts) {
    return name -> {
      for (Map<String, String> vars : contexts) {
        String v = vars.get(name);
        if (v != null) {
          return v;
        }
      }
      return "$(" + name + ")";
    };
  }

  /** Expands the references of {@code input} through {@code mapping}. */
  public static String expand(String input, UnaryOperator<String> mapping) {
    if (input == null || input.indexOf('$') < 0) {
      return input;
    }
    StringBuilder buf = new StringBuilder(input.length());
    int checkpoint = 0;
    for (int cursor = 0; cursor < input.length(); cursor++) {
      if (input.charAt(cursor) != '$' || cursor + 1 >= input.length()) {
        continue;
      }
      buf.append(input, checkpoint, cursor);
      char next = input.charAt(cursor + 1);
      int advance = 1;
      if (next == '$') {
        buf.append('$');
      } else if (next == '(') {
        int close = input.indexOf(')', cursor + 2);
        if (close >= 0) {
          buf.append(mapping.apply(input.substring(cursor + 2, close)));
          advance = close - cursor;
        } else {
          buf.append("$(");
        }
      } else {
        buf.append('$').append(next);
      }
      cursor += advance;
      checkpoint = cursor + 1;
    }
    return buf.append(input, checkpoint, input.length()).toString();
  }
}
