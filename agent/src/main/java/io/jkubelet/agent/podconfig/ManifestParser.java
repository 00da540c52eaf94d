package io.jkubelet.agent.podconfig;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.agent.util.Errors;
import java.util.List;

/**
 * Turns manifest bytes (YAML or JSON, one Pod) into a defaulted, validated static pod, or a message
 * that says what is wrong with it.
 */
public final class ManifestParser {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final String nodeName;

  public ManifestParser(String nodeName) {
    this.nodeName = nodeName;
  }

  /** The outcome of parsing one manifest. */
  public sealed interface Result permits Parsed, Invalid {}

  /** A valid, defaulted pod. */
  public record Parsed(Pod pod) implements Result {}

  /**
   * A manifest that cannot be used. {@code pod} is the defaulted pod when it could be read at all
   * (so an event can name it), or null for a malformed file.
   */
  public record Invalid(String message, Pod pod) implements Result {}

  /** Parses one pod from {@code content}, read from {@code location} (a path or URL). */
  public Result parse(String content, String location, Source source) {
    JsonNode node;
    try {
      node = YAML.readTree(content);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr();
      return new Invalid(
          "malformed YAML/JSON" + where + ": " + firstLine(e.getOriginalMessage()), null);
    }
    if (node == null || node.isMissingNode() || node.isNull() || !node.isObject()) {
      return new Invalid("no object found: expected one Pod", null);
    }
    String kind = node.path("kind").asText("");
    String apiVersion = node.path("apiVersion").asText("");
    if (!"Pod".equals(kind)) {
      return new Invalid("kind is \"" + kind + "\": expected \"Pod\" (one Pod per manifest)", null);
    }
    if (!apiVersion.isEmpty() && !"v1".equals(apiVersion)) {
      return new Invalid("apiVersion is \"" + apiVersion + "\": expected \"v1\"", null);
    }
    Pod pod;
    try {
      pod = ApiSerialization.SHARED.convertValue(node, Pod.class);
    } catch (RuntimeException e) {
      return new Invalid("cannot decode the Pod: " + rootMessage(e), null);
    }
    if (pod.getMetadata() == null || pod.getMetadata().getName() == null || pod.getSpec() == null) {
      List<String> errs = PodValidator.validate(pod);
      return new Invalid("invalid pod: " + String.join("; ", errs), null);
    }
    List<String> errs = PodValidator.validate(pod);
    try {
      StaticPods.applyDefaults(pod, location, source, nodeName);
    } catch (RuntimeException e) {
      return new Invalid("cannot default the Pod: " + rootMessage(e), null);
    }
    if (!errs.isEmpty()) {
      return new Invalid("invalid pod: " + String.join("; ", errs), pod);
    }
    List<String> after = PodValidator.validate(pod);
    if (!after.isEmpty()) {
      return new Invalid("invalid pod: " + String.join("; ", after), pod);
    }
    return new Parsed(pod);
  }

  /** Parser messages quote the input over several lines; the log wants one. */
  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl).strip();
  }

  private static String rootMessage(Throwable e) {
    Throwable t = Errors.rootCause(e);
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
