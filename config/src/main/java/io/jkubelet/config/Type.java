package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A setting's type: how its value is read from a configuration file (with upstream's types and
 * messages, no coercion) and from its flag (with upstream's syntax), and what {@code --help} calls
 * it. The type of a declared component follows from its Java type ({@link #of}).
 *
 * <p>A flag's value arrives as the strings given, one per occurrence: the scalar types take one;
 * lists ({@code a,b}, repeatable) and header mappings ({@code Name:value,...}) join every
 * occurrence; mappings take one {@code k=v,...} (or {@code k<v,...}).
 */
public final class Type {
  /** How the flag takes its value. */
  public enum Shape {
    /** {@code --flag} alone is true; {@code --flag=false}. */
    SWITCH,
    /** One value. */
    SCALAR,
    /** Repeatable; each occurrence a comma-separated list. */
    LIST
  }

  private interface Json {
    Object read(String field, JsonNode v);
  }

  private interface Flag {
    Object parse(String flag, List<String> given);
  }

  public static final Type BOOL =
      new Type(
          "BOOL",
          Shape.SWITCH,
          Boolean.class,
          JsonFields::asBool,
          (flag, given) -> bool(flag, given.getLast()));
  public static final Type INT = integer(Integer.class, JsonFields::asInt, Integer::parseInt);
  public static final Type LONG = integer(Long.class, JsonFields::asLong, Long::parseLong);

  /** A floating-point number, as upstream's {@code float32} and {@code float64} flags. */
  public static final Type FLOAT =
      new Type(
          "NUMBER",
          Shape.SCALAR,
          Double.class,
          (field, v) -> {
            if (!v.isNumber()) {
              throw new ConfigException(field, "expected a number, got " + JsonFields.describe(v));
            }
            return v.doubleValue();
          },
          (f, g) -> number(f, g.getLast(), Double::parseDouble, "a number"));

  public static final Type STRING =
      new Type("VALUE", Shape.SCALAR, String.class, JsonFields::asString, (f, g) -> g.getLast());
  public static final Type DURATION =
      new Type(
          "DURATION",
          Shape.SCALAR,
          Duration.class,
          JsonFields::asDuration,
          (f, g) -> {
            try {
              return Durations.parse(g.getLast());
            } catch (IllegalArgumentException e) {
              throw ConfigException.causedBy(f, e.getMessage(), e);
            }
          });
  public static final Type PATH =
      new Type(
          "PATH",
          Shape.SCALAR,
          Path.class,
          (field, v) -> Path.of(JsonFields.asString(field, v)),
          (f, g) -> Path.of(g.getLast()));
  public static final Type STRINGS =
      new Type("VALUE,...", Shape.LIST, List.class, JsonFields::strings, (f, g) -> list(g));
  public static final Type HEADERS =
      new Type("'Name:value',...", Shape.LIST, Map.class, JsonFields::headers, Type::headers);

  /** A mapping of strings written {@code k=v,...} in its flag, as upstream's MapStringString. */
  public static final Type MAP = map('=');

  /** A mapping written {@code k<v,...}, as upstream's LangleSeparatedMapStringString. */
  public static final Type LANGLE_MAP = map('<');

  /**
   * A mapping of names to booleans written {@code k=true,...}, repeatable, as upstream's {@code
   * mapStringBool} and its feature gates' flag (whose messages it keeps).
   */
  public static final Type BOOL_MAP =
      new Type("NAME=BOOL,...", Shape.LIST, Map.class, JsonFields::boolMap, Type::boolPairs);

  private final String label;
  private final Shape shape;
  private final Class<?> javaType;
  private final Json json;
  private final Flag flag;

  private Type(String label, Shape shape, Class<?> javaType, Json json, Flag flag) {
    this.label = label;
    this.shape = shape;
    this.javaType = javaType;
    this.json = json;
    this.flag = flag;
  }

  private static Type map(char separator) {
    return new Type(
        "KEY" + separator + "VALUE,...",
        Shape.SCALAR,
        Map.class,
        JsonFields::stringMap,
        (f, g) -> pairs(f, g.getLast(), separator));
  }

  /** The type of a declared record component. */
  static Type of(RecordComponent c, Field f) {
    Class<?> t = c.getType();
    if (t == boolean.class) {
      return BOOL;
    } else if (t == int.class) {
      return INT;
    } else if (t == long.class) {
      return LONG;
    } else if (t == String.class) {
      return STRING;
    } else if (t == Duration.class) {
      return DURATION;
    } else if (t == Path.class) {
      return PATH;
    } else if (t == List.class && typeArgs(c).equals("[class java.lang.String]")) {
      return STRINGS;
    } else if (t == Map.class
        && typeArgs(c).equals("[class java.lang.String, class java.lang.String]")) {
      return f.separator() == '<' ? LANGLE_MAP : MAP;
    } else if (t == Map.class
        && typeArgs(c).equals("[class java.lang.String, class java.lang.Boolean]")) {
      return BOOL_MAP;
    } else if (t == Map.class
        && typeArgs(c).equals("[class java.lang.String, java.util.List<java.lang.String>]")) {
      return HEADERS;
    }
    throw new IllegalStateException(
        c.getDeclaringRecord().getSimpleName() + "." + c.getName() + ": no setting type for " + t);
  }

  private static String typeArgs(RecordComponent c) {
    return c.getGenericType() instanceof ParameterizedType p
        ? Arrays.toString(p.getActualTypeArguments())
        : "";
  }

  /** The flag's value in {@code --help} unless the declaration names it. */
  public String label() {
    return label;
  }

  /** How the flag takes its value. */
  public Shape shape() {
    return shape;
  }

  /** The class of the values, boxed. */
  public Class<?> javaType() {
    return javaType;
  }

  /**
   * Reads a file's value.
   *
   * @throws ConfigException naming {@code field} (or a part of it) when the value has another type
   */
  Object fromJson(String field, JsonNode v) {
    return json.read(field, v);
  }

  /**
   * Parses a flag's value.
   *
   * @param given the strings given, one per occurrence; at least one
   * @throws ConfigException naming {@code flag} when a string is not of this type
   */
  public Object fromFlag(String flag, List<String> given) {
    return this.flag.parse(flag, given);
  }

  private static Boolean bool(String flag, String s) {
    Boolean b = goBool(s.strip());
    if (b != null) {
      return b;
    }
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException(flag, "expected true or false, got \"" + s + "\"");
    };
  }

  /**
   * An integer type: label {@code N}, read from JSON by {@code json}, from a flag by {@code parse}.
   */
  private static <N extends Number> Type integer(
      Class<N> type, Json json, Function<String, N> parse) {
    return new Type(
        "N", Shape.SCALAR, type, json, (f, g) -> number(f, g.getLast(), parse, "an integer"));
  }

  /** A flag's number, or upstream's words for what is not one ({@code what}: "an integer"). */
  private static <N extends Number> N number(
      String flag, String s, Function<String, N> parse, String what) {
    try {
      return parse.apply(s.strip());
    } catch (NumberFormatException e) {
      throw new ConfigException(flag, "expected " + what + ", got \"" + s + "\"");
    }
  }

  /** Comma-separated values of every occurrence: "" is the empty list, as upstream's. */
  private static List<String> list(List<String> given) {
    List<String> out = new ArrayList<>();
    for (String g : given) {
      Arrays.stream(g.split(",")).map(String::strip).filter(v -> !v.isEmpty()).forEach(out::add);
    }
    return out;
  }

  /** {@code Name:value} pairs into a header map; a repeated name keeps every value. */
  private static Map<String, List<String>> headers(String flag, List<String> given) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String pair : list(given)) {
      int colon = pair.indexOf(':');
      if (colon <= 0) {
        throw new ConfigException(flag, "\"" + pair + "\" is not of the form 'Name:value'");
      }
      out.computeIfAbsent(pair.substring(0, colon).strip(), k -> new ArrayList<>())
          .add(pair.substring(colon + 1).strip());
    }
    return out;
  }

  /**
   * {@code k=bool} pairs of every occurrence, as component-base's {@code featureGate.Set}: Go's
   * {@code strconv.ParseBool} values, a later pair winning.
   */
  private static Map<String, Boolean> boolPairs(String flag, List<String> given) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (String g : given) {
      for (String s : g.split(",")) {
        if (s.isEmpty()) {
          continue;
        }
        int i = s.indexOf('=');
        String k = (i < 0 ? s : s.substring(0, i)).strip();
        if (i < 0) {
          throw new ConfigException(flag, "missing bool value for " + k);
        }
        String v = s.substring(i + 1).strip();
        Boolean b = goBool(v);
        if (b == null) {
          throw new ConfigException(
              flag,
              "invalid value of "
                  + k
                  + "="
                  + v
                  + ", err: strconv.ParseBool: parsing \""
                  + v
                  + "\": invalid syntax");
        }
        out.put(k, b);
      }
    }
    return out;
  }

  /** Go's {@code strconv.ParseBool}; null for anything else. */
  static Boolean goBool(String v) {
    return switch (v) {
      case "1", "t", "T", "TRUE", "true", "True" -> true;
      case "0", "f", "F", "FALSE", "false", "False" -> false;
      default -> null;
    };
  }

  /** Comma-separated pairs {@code k<separator>v}; "" is the empty map. */
  private static Map<String, String> pairs(String flag, String value, char separator) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : value.split(",")) {
      String p = pair.strip();
      if (p.isEmpty()) {
        continue;
      }
      int i = p.indexOf(separator);
      if (i <= 0) {
        throw new ConfigException(
            flag, "malformed pair, expect string" + separator + "string, got \"" + p + "\"");
      }
      out.put(p.substring(0, i).strip(), p.substring(i + 1).strip());
    }
    return out;
  }
}
