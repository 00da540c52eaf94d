package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The readers of JSON values behind {@link Type}: each checks a value's type and turns it into the
 * Java value, or throws a {@link ConfigException} naming the field and what it got.
 */
final class JsonFields {

  private JsonFields() {}

  static boolean asBool(String field, JsonNode v) {
    return expect(field, v, v.isBoolean(), "true or false").booleanValue();
  }

  static Duration asDuration(String field, JsonNode v) {
    expect(field, v, v.isTextual(), "a duration such as \"20s\" or \"1m30s\"");
    try {
      return Durations.parse(v.textValue());
    } catch (IllegalArgumentException e) {
      throw ConfigException.causedBy(field, e.getMessage(), e);
    }
  }

  static String asString(String field, JsonNode value) {
    return expect(field, value, value.isTextual(), "a string").textValue();
  }

  static int asInt(String field, JsonNode value) {
    expect(field, value, value.isIntegralNumber(), "an integer");
    String range = "an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE;
    return expect(field, value, value.canConvertToInt(), range).intValue();
  }

  static long asLong(String field, JsonNode value) {
    expect(field, value, value.isIntegralNumber(), "an integer");
    return expect(field, value, value.canConvertToLong(), "a 64-bit integer").longValue();
  }

  /** Reads a mapping of strings to strings (upstream's {@code map[string]string}). */
  static Map<String, String> stringMap(String field, JsonNode value) {
    return mapping(field, value, "a mapping of strings", JsonFields::asString);
  }

  /** Reads a mapping of strings to booleans (upstream's {@code map[string]bool}). */
  static Map<String, Boolean> boolMap(String field, JsonNode value) {
    return mapping(field, value, "a mapping of booleans", JsonFields::asBool);
  }

  /** Reads a list of strings. */
  static List<String> strings(String field, JsonNode value) {
    expect(field, value, value.isArray(), "a list of strings");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      out.add(asString(field + "[" + i + "]", value.get(i)));
    }
    return out;
  }

  /** Reads a mapping of header names to lists of values; null counts as empty. */
  static Map<String, List<String>> headers(String field, JsonNode value) {
    return mapping(
        field,
        value,
        "a mapping of header names to lists of values",
        (f, values) -> values.isNull() ? List.of() : strings(f, values));
  }

  /** A mapping's entries, each read by {@code entry} and named {@code field.key} in errors. */
  private static <V> Map<String, V> mapping(
      String field, JsonNode value, String what, BiFunction<String, JsonNode, V> entry) {
    expect(field, value, value.isObject(), what);
    Map<String, V> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : value.properties()) {
      out.put(e.getKey(), entry.apply(field + "." + e.getKey(), e.getValue()));
    }
    return out;
  }

  /**
   * The value, if {@code ok}; else the one error of a value of the wrong type, {@code expected
   * <what>, got <value>}.
   */
  private static JsonNode expect(String field, JsonNode value, boolean ok, String what) {
    if (!ok) {
      throw new ConfigException(field, "expected " + what + ", got " + describe(value));
    }
    return value;
  }

  /** A short rendering of a value for messages: scalars as JSON, containers by kind only. */
  static String describe(JsonNode value) {
    if (value.isArray()) {
      return "a list";
    }
    if (value.isObject()) {
      return "a mapping";
    }
    return value.toString();
  }
}
