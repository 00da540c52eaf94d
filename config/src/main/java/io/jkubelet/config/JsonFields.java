package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link ConfigLoader}'s readers of JSON values: each checks a value's type and turns it into the
 * Java value, or throws a {@link ConfigException} naming the field and what it got. The nested
 * objects ({@code authentication}, {@code authorization}, {@code eventExport}) are read over the
 * values they had, so that a field the file leaves out keeps its default.
 */
final class JsonFields {

  private JsonFields() {}

  /** Reads {@code eventExport} over {@code e}. */
  static EventExport eventExport(EventExport e, JsonNode v) {
    if (!v.isObject()) {
      throw new ConfigException("eventExport", "expected a mapping, got " + describe(v));
    }
    for (Map.Entry<String, JsonNode> f : v.properties()) {
      String field = "eventExport." + f.getKey();
      if (f.getValue().isNull()) {
        continue;
      }
      String s = asString(field, f.getValue());
      e =
          switch (f.getKey()) {
            case "url" -> e.withUrl(s);
            case "credentialsFile" -> e.withCredentialsFile(s);
            case "caFile" -> e.withCaFile(s);
            case "index" -> e.withIndex(s);
            case "spoolMax" -> e.withSpoolMax(s);
            case "file" -> e.withFile(s);
            case "fileMaxSize" -> e.withFileMaxSize(s);
            default -> throw new ConfigException(field, "unknown field of eventExport");
          };
    }
    return e;
  }

  /** Reads {@code authentication} over {@code a}; absent or null fields keep {@code a}'s. */
  static Authentication authentication(Authentication a, JsonNode v) {
    String ca = a.clientCAFile();
    boolean webhook = a.webhookEnabled();
    Duration ttl = a.webhookCacheTTL();
    boolean anonymous = a.anonymous();
    JsonNode n = v.at("/x509/clientCAFile");
    if (!n.isMissingNode() && !n.isNull()) {
      ca = asString("authentication.x509.clientCAFile", n);
    }
    n = v.at("/webhook/enabled");
    if (!n.isMissingNode() && !n.isNull()) {
      webhook = asBool("authentication.webhook.enabled", n);
    }
    n = v.at("/webhook/cacheTTL");
    if (!n.isMissingNode() && !UpstreamFields.unset("authentication.webhook.cacheTTL", n, true)) {
      ttl = asDuration("authentication.webhook.cacheTTL", n);
    }
    n = v.at("/anonymous/enabled");
    if (!n.isMissingNode() && !n.isNull()) {
      anonymous = asBool("authentication.anonymous.enabled", n);
    }
    return new Authentication(ca, webhook, ttl, anonymous);
  }

  /** Reads {@code authorization} over {@code a}; absent or unset fields keep {@code a}'s. */
  static Authorization authorization(Authorization a, JsonNode v) {
    String mode = a.mode();
    Duration allowed = a.cacheAuthorizedTTL();
    Duration denied = a.cacheUnauthorizedTTL();
    JsonNode n = v.at("/mode");
    if (!n.isMissingNode() && !UpstreamFields.unset("authorization.mode", n, false)) {
      mode = asString("authorization.mode", n);
    }
    n = v.at("/webhook/cacheAuthorizedTTL");
    if (!n.isMissingNode() && !UpstreamFields.unset("authorization.webhook.ttl", n, true)) {
      allowed = asDuration("authorization.webhook.cacheAuthorizedTTL", n);
    }
    n = v.at("/webhook/cacheUnauthorizedTTL");
    if (!n.isMissingNode() && !UpstreamFields.unset("authorization.webhook.ttl", n, true)) {
      denied = asDuration("authorization.webhook.cacheUnauthorizedTTL", n);
    }
    return new Authorization(mode, allowed, denied);
  }

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
      throw new ConfigException(field, e.getMessage(), e);
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

  /** Reads {@code staticPodURLHeader}: header name to a list of values; null counts as empty. */
  static Map<String, List<String>> headers(JsonNode value) {
    String field = "staticPodURLHeader";
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
