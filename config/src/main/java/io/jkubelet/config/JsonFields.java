package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The readers of JSON values behind {@link Type}: each checks a value's type and turns it into the
 * Java value, or throws a {@link ConfigException} naming the field and what it got.
 */
final class JsonFields {

  private JsonFields() {}

  static boolean asBool(String field, JsonNode v) {
    if (!v.isBoolean()) {
      throw new ConfigException(field, "expected true or false, got " + describe(v));
    }
    return v.booleanValue();
  }

  static Duration asDuration(String field, JsonNode v) {
    if (!v.isTextual()) {
      throw new ConfigException(
          field, "expected a duration such as \"20s\" or \"1m30s\", got " + describe(v));
    }
    try {
      return Durations.parse(v.textValue());
    } catch (IllegalArgumentException e) {
      throw ConfigException.causedBy(field, e.getMessage(), e);
    }
  }

  static String asString(String field, JsonNode value) {
    if (!value.isTextual()) {
      throw new ConfigException(field, "expected a string, got " + describe(value));
    }
    return value.textValue();
  }

  static int asInt(String field, JsonNode value) {
    if (!value.isIntegralNumber()) {
      throw new ConfigException(field, "expected an integer, got " + describe(value));
    }
    if (!value.canConvertToInt()) {
      throw new ConfigException(
          field,
          "expected an integer between "
              + Integer.MIN_VALUE
              + " and "
              + Integer.MAX_VALUE
              + ", got "
              + describe(value));
    }
    return value.intValue();
  }

  static long asLong(String field, JsonNode value) {
    if (!value.isIntegralNumber()) {
      throw new ConfigException(field, "expected an integer, got " + describe(value));
    }
    if (!value.canConvertToLong()) {
      throw new ConfigException(field, "expected a 64-bit integer, got " + describe(value));
    }
    return value.longValue();
  }

  /** Reads a mapping of strings to strings (upstream's {@code map[string]string}). */
  static Map<String, String> stringMap(String field, JsonNode value) {
    if (!value.isObject()) {
      throw new ConfigException(field, "expected a mapping of strings, got " + describe(value));
    }
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : value.properties()) {
      out.put(e.getKey(), asString(field + "." + e.getKey(), e.getValue()));
    }
    return out;
  }

  /** Reads a mapping of strings to booleans (upstream's {@code map[string]bool}). */
  static Map<String, Boolean> boolMap(String field, JsonNode value) {
    if (!value.isObject()) {
      throw new ConfigException(field, "expected a mapping of booleans, got " + describe(value));
    }
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : value.properties()) {
      out.put(e.getKey(), asBool(field + "." + e.getKey(), e.getValue()));
    }
    return out;
  }

  /** Reads a list of strings. */
  static List<String> strings(String field, JsonNode value) {
    if (!value.isArray()) {
      throw new ConfigException(field, "expected a list of strings, got " + describe(value));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      out.add(asString(field + "[" + i + "]", value.get(i)));
    }
    return out;
  }

  /** Reads a mapping of header names to lists of values; null counts as empty. */
  static Map<String, List<String>> headers(String field, JsonNode value) {
    if (!value.isObject()) {
      throw new ConfigException(
          field, "expected a mapping of header names to lists of values, got " + describe(value));
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> header : value.properties()) {
      String headerField = field + "." + header.getKey();
      JsonNode values = header.getValue();
      if (!values.isArray() && !values.isNull()) {
        throw new ConfigException(
            headerField, "expected a list of strings, got " + describe(values));
      }
      List<String> list = new ArrayList<>();
      for (int i = 0; i < values.size(); i++) {
        list.add(asString(headerField + "[" + i + "]", values.get(i)));
      }
      headers.put(header.getKey(), list);
    }
    return headers;
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
