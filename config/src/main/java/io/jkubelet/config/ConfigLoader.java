package io.jkubelet.config;

import static io.jkubelet.config.JsonFields.describe;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a KubeletConfiguration file, as YAML or JSON.
 *
 * <p>The file must hold a single mapping with {@code kind: KubeletConfiguration} and {@code
 * apiVersion: kubelet.config.k8s.io/v1beta1}. The fields read are the declared settings' ({@link
 * Settings}), each with the type upstream gives it ({@link Type}): strings, integers (32-bit),
 * booleans, durations as Go-style strings (see {@link Durations}), lists and mappings. Nested
 * mappings ({@code authentication.webhook.enabled}) are read by their dotted names. Values are not
 * coerced: {@code maxPods: "110"} is an error, as it is for upstream. A field that is absent or
 * {@code null} keeps its default, and so does one holding the zero value upstream defaults ({@code
 * 0s}, as kubeadm writes every duration; see {@link Field#zeroIsUnset()}). Upstream fields jkubelet
 * does not implement are listed in {@link Loaded#unimplemented()}; other unknown fields are
 * warnings, not errors, as upstream v1.20 ignores them, except inside jkubelet's own mappings.
 *
 * <p>Loading checks types only; ranges are checked by {@link ConfigValidator}, normally after
 * command-line flags have been overlaid on the loaded configuration.
 */
public final class ConfigLoader {

  /** The {@code kind} a configuration file must declare. */
  public static final String KIND = "KubeletConfiguration";

  /** The {@code apiVersion} a configuration file must declare. */
  public static final String API_VERSION = "kubelet.config.k8s.io/v1beta1";

  /** The {@link ConfigException#field()} used for problems with the file itself. */
  public static final String FILE_FIELD = "config";

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private ConfigLoader() {}

  /**
   * A loaded configuration and the warnings to show the user.
   *
   * @param config the configuration: file values over defaults; not yet validated
   * @param warnings one message per field that upstream does not have either, in file order, e.g.
   *     {@code field maxpods is not supported by jkubelet and is ignored (did you mean maxPods?)}
   * @param unimplemented the upstream fields the file sets that jkubelet does not implement and
   *     ignores, in file order, e.g. {@code volumeStatsAggPeriod}; those it accepts without effect
   *     say why in their {@link Setting#reason()}
   */
  public record Loaded(
      KubeletConfiguration config, List<String> warnings, List<String> unimplemented) {
    /** Copies the lists into unmodifiable ones. */
    public Loaded {
      Objects.requireNonNull(config, "config");
      warnings = List.copyOf(warnings);
      unimplemented = List.copyOf(unimplemented);
    }
  }

  /**
   * Loads a configuration file.
   *
   * @param file a YAML or JSON KubeletConfiguration file
   * @return the configuration and warnings about ignored fields
   * @throws ConfigException with field {@code config} if the file cannot be read, is empty, is not
   *     valid YAML (the message names the file, line and column, followed by the parser's own
   *     explanation, which may span several lines and quote the offending text), repeats a field,
   *     or is not a single mapping; with field {@code kind} or {@code apiVersion} if either is
   *     missing or not the expected value; with the field's name if a value has the wrong type or
   *     is a malformed duration
   */
  public static Loaded load(Path file) {
    JsonNode root = parse(file, read(file));
    expectConstant(root, "kind", KIND);
    expectConstant(root, "apiVersion", API_VERSION);

    KubeletConfigurationBuilder builder = KubeletConfiguration.fileBuilder();
    List<String> warnings = new ArrayList<>();
    List<String> unimplemented = new ArrayList<>();
    for (Map.Entry<String, JsonNode> entry : root.properties()) {
      String name = entry.getKey();
      if (!name.equals("kind") && !name.equals("apiVersion")) {
        read(builder, name, entry.getValue(), warnings, unimplemented);
      }
    }
    if (!set(root, "nodeStatusReportFrequency") && set(root, "nodeStatusUpdateFrequency")) {
      // Upstream's backward compatibility: the report frequency follows an update frequency set.
      builder.set("nodeStatusReportFrequency", builder.get("nodeStatusUpdateFrequency"));
    }
    return new Loaded(builder.build(), warnings, unimplemented);
  }

  /** Reads the field {@code name} (dotted when nested) into {@code builder}. */
  private static void read(
      KubeletConfigurationBuilder builder,
      String name,
      JsonNode value,
      List<String> warnings,
      List<String> unimplemented) {
    Setting s = Settings.named(name).filter(Setting::inFile).orElse(null);
    if (s != null) {
      if (s.isIgnored()) {
        unimplemented.add(name);
        if (!value.isNull()) {
          s.check(s.fromJson(value));
        }
      } else if (!s.unset(value)) {
        builder.set(s, s.fromJson(value));
      }
    } else if (Settings.isMapping(name)) {
      if (value.isNull()) {
        return;
      }
      if (!value.isObject()) {
        throw new ConfigException(name, "expected a mapping, got " + describe(value));
      }
      for (Map.Entry<String, JsonNode> f : value.properties()) {
        read(builder, name + "." + f.getKey(), f.getValue(), warnings, unimplemented);
      }
    } else if (!name.contains(".")) {
      if (UpstreamFields.ALL.contains(name)) {
        unimplemented.add(name);
      } else {
        warnings.add(unsupported(name));
      }
    } else {
      String top = name.substring(0, name.indexOf('.'));
      if (!UpstreamFields.ALL.contains(top)) {
        throw new ConfigException(name, "unknown field of " + top);
      }
      warnings.add(unsupported(name));
    }
  }

  /** Whether the file gives the duration {@code field} a value other than its default's. */
  private static boolean set(JsonNode root, String field) {
    JsonNode v = root.get(field);
    return v != null && !Settings.named(field).orElseThrow().unset(v);
  }

  private static byte[] read(Path file) {
    if (Files.isDirectory(file)) {
      throw new ConfigException(FILE_FIELD, file + " is a directory, expected a file");
    }
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw ConfigException.causedBy(FILE_FIELD, "file " + file + " does not exist", e);
    } catch (AccessDeniedException e) {
      throw ConfigException.causedBy(FILE_FIELD, "cannot read " + file + ": permission denied", e);
    } catch (IOException e) {
      throw ConfigException.causedBy(FILE_FIELD, "cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static JsonNode parse(Path file, byte[] content) {
    // A parser rather than readValues(): that would unwrap a top-level list into its elements.
    try (JsonParser parser = YAML.createParser(content)) {
      JsonNode root = YAML.readTree(parser);
      if (root == null || root.isNull() || root.isMissingNode()) {
        throw new ConfigException(FILE_FIELD, file + " is empty, expected a " + KIND);
      }
      if (!root.isObject()) {
        throw new ConfigException(
            FILE_FIELD, file + " must hold a mapping of fields, got " + describe(root));
      }
      JsonToken next = parser.nextToken();
      if (next != null && next != JsonToken.VALUE_NULL) {
        throw new ConfigException(
            FILE_FIELD, file + " holds more than one YAML document, expected only a " + KIND);
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where =
          at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw ConfigException.causedBy(
          FILE_FIELD,
          file + " is not valid YAML" + where + ": " + e.getOriginalMessage().strip(),
          e);
    } catch (IOException e) {
      throw ConfigException.causedBy(FILE_FIELD, "cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static void expectConstant(JsonNode root, String field, String expected) {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      throw new ConfigException(field, "must be \"" + expected + "\", but it is missing");
    }
    if (!value.isTextual() || !value.textValue().equals(expected)) {
      throw new ConfigException(field, "must be \"" + expected + "\", got " + describe(value));
    }
  }

  private static String unsupported(String name) {
    String warning = "field " + name + " is not supported by jkubelet and is ignored";
    for (Setting known : Settings.all()) {
      if (known.inFile() && known.name().equalsIgnoreCase(name)) {
        return warning + " (did you mean " + known.name() + "?)";
      }
    }
    return warning;
  }
}
