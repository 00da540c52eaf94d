package io.jkubelet.config;

import static io.jkubelet.config.JsonFields.asDuration;
import static io.jkubelet.config.JsonFields.asInt;
import static io.jkubelet.config.JsonFields.asLong;
import static io.jkubelet.config.JsonFields.asString;
import static io.jkubelet.config.JsonFields.authentication;
import static io.jkubelet.config.JsonFields.authorization;
import static io.jkubelet.config.JsonFields.describe;
import static io.jkubelet.config.JsonFields.eventExport;
import static io.jkubelet.config.JsonFields.headers;
import static io.jkubelet.config.JsonFields.strings;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.jkubelet.config.KubeletConfiguration.Builder;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Reads a KubeletConfiguration file, as YAML or JSON.
 *
 * <p>The file must hold a single mapping with {@code kind: KubeletConfiguration} and {@code
 * apiVersion: kubelet.config.k8s.io/v1beta1}. Each supported field is mapped explicitly and has the
 * type upstream gives it: strings, integers (32-bit), booleans, durations as Go-style strings (see
 * {@link Durations}) and {@code staticPodURLHeader} as a mapping of header names to lists of
 * strings. Values are not coerced: {@code maxPods: "110"} is an error, as it is for upstream. A
 * field that is absent or {@code null} keeps its default, and so does one holding the zero value
 * upstream defaults ({@code 0s}, as kubeadm writes every duration; see {@link UpstreamFields}).
 * Upstream fields jkubelet does not implement are listed in {@link Loaded#unimplemented()}; other
 * unknown fields are warnings, not errors, as upstream v1.20 ignores them.
 *
 * <p>Loading checks types only; ranges are checked by {@link ConfigValidator}, normally after
 * command-line flags have been overlaid on the loaded configuration.
 *
 * <p>One table maps every field jkubelet reads to its reader, so that a field's type errors and
 * upstream's zero-means-default rule ({@link UpstreamFields}) apply the same way to all of them;
 * the readers of JSON values, nested objects included, are in {@link JsonFields}.
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

  /** Supported fields, in upstream's order, each reading its node into the builder. */
  private static final Map<String, BiConsumer<Builder, JsonNode>> FIELDS = new LinkedHashMap<>();

  static {
    string("staticPodPath", (b, v) -> b.staticPods(b.staticPods().withStaticPodPath(v)));
    duration("syncFrequency", Builder::syncFrequency);
    duration(
        "fileCheckFrequency", (b, v) -> b.staticPods(b.staticPods().withFileCheckFrequency(v)));
    duration(
        "httpCheckFrequency", (b, v) -> b.staticPods(b.staticPods().withHttpCheckFrequency(v)));
    string("staticPodURL", (b, v) -> b.staticPods(b.staticPods().withStaticPodURL(v)));
    FIELDS.put(
        "staticPodURLHeader",
        (b, v) -> b.staticPods(b.staticPods().withStaticPodURLHeader(headers(v))));
    string("address", (b, v) -> b.server(b.server().withAddress(v)));
    integer("port", (b, v) -> b.server(b.server().withPort(v)));
    integer("readOnlyPort", (b, v) -> b.server(b.server().withReadOnlyPort(v)));
    bool("registerNode", Builder::registerNode);
    integer("eventRecordQPS", Builder::eventRecordQPS);
    integer("eventBurst", Builder::eventBurst);
    integer("kubeAPIQPS", Builder::kubeAPIQPS);
    integer("kubeAPIBurst", Builder::kubeAPIBurst);
    integer("maxPods", Builder::maxPods);
    duration("nodeStatusUpdateFrequency", Builder::nodeStatusUpdateFrequency);
    duration("nodeStatusReportFrequency", Builder::nodeStatusReportFrequency);
    integer("nodeLeaseDurationSeconds", Builder::nodeLeaseDurationSeconds);
    integer("podInfraOomScoreAdj", Builder::podInfraOomScoreAdj);
    FIELDS.put(
        "allowedUnsafeSysctls",
        (b, v) -> b.allowedUnsafeSysctls(strings("allowedUnsafeSysctls", v)));
    FIELDS.put("clusterDNS", (b, v) -> b.clusterDNS(strings("clusterDNS", v)));
    string("clusterDomain", Builder::clusterDomain);
    string("resolvConf", Builder::resolvConf);
    string("tlsCertFile", (b, v) -> b.server(b.server().withTlsCertFile(v)));
    string("tlsPrivateKeyFile", (b, v) -> b.server(b.server().withTlsPrivateKeyFile(v)));
    FIELDS.put(
        "authentication",
        (b, v) ->
            b.server(
                b.server().withAuthentication(authentication(b.server().authentication(), v))));
    FIELDS.put(
        "authorization",
        (b, v) ->
            b.server(b.server().withAuthorization(authorization(b.server().authorization(), v))));
    integer("healthzPort", (b, v) -> b.server(b.server().withHealthzPort(v)));
    string("healthzBindAddress", (b, v) -> b.server(b.server().withHealthzBindAddress(v)));
    bool("enableDebuggingHandlers", (b, v) -> b.server(b.server().withEnableDebuggingHandlers(v)));
    string(
        "containerLogMaxSize",
        (b, v) -> b.containerLogs(b.containerLogs().withContainerLogMaxSize(v)));
    integer(
        "containerLogMaxFiles",
        (b, v) -> b.containerLogs(b.containerLogs().withContainerLogMaxFiles(v)));
    bool("enableSystemLogHandler", (b, v) -> b.server(b.server().withEnableSystemLogHandler(v)));
    FIELDS.put("eventExport", (b, v) -> b.eventExport(eventExport(b.eventExport(), v)));
    string("hairpinMode", (b, v) -> b.network(b.network().withHairpinMode(v)));
    string("podCIDR", (b, v) -> b.network(b.network().withPodCIDR(v)));
    bool("cgroupsPerQOS", (b, v) -> b.cgroups(b.cgroups().withCgroupsPerQOS(v)));
    string("cgroupRoot", (b, v) -> b.cgroups(b.cgroups().withCgroupRoot(v)));
    string("cgroupDriver", (b, v) -> b.cgroups(b.cgroups().withCgroupDriver(v)));
    bool("cpuCFSQuota", (b, v) -> b.cgroups(b.cgroups().withCpuCFSQuota(v)));
    duration("cpuCFSQuotaPeriod", (b, v) -> b.cgroups(b.cgroups().withCpuCFSQuotaPeriod(v)));
    FIELDS.put(
        "podPidsLimit",
        (b, v) -> b.cgroups(b.cgroups().withPodPidsLimit(asLong("podPidsLimit", v))));
    FIELDS.put(
        "enforceNodeAllocatable",
        (b, v) ->
            b.cgroups(
                b.cgroups().withEnforceNodeAllocatable(strings("enforceNodeAllocatable", v))));
    integer(
        "imageGCHighThresholdPercent", (b, v) -> b.gc(b.gc().withImageGCHighThresholdPercent(v)));
    integer("imageGCLowThresholdPercent", (b, v) -> b.gc(b.gc().withImageGCLowThresholdPercent(v)));
    duration("imageMinimumGCAge", (b, v) -> b.gc(b.gc().withImageMinimumGCAge(v)));
    bool(
        "rotateCertificates", (b, v) -> b.certificates(b.certificates().withRotateCertificates(v)));
    bool(
        "serverTLSBootstrap", (b, v) -> b.certificates(b.certificates().withServerTLSBootstrap(v)));
  }

  private ConfigLoader() {}

  /**
   * A loaded configuration and the warnings to show the user.
   *
   * @param config the configuration: file values over defaults; not yet validated
   * @param warnings one message per field that upstream does not have either, in file order, e.g.
   *     {@code field maxpods is not supported by jkubelet and is ignored (did you mean maxPods?)}
   * @param unimplemented the upstream fields the file sets that jkubelet does not implement and
   *     ignores, in file order, e.g. {@code evictionHard}
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

    Builder builder = KubeletConfiguration.fileBuilder();
    List<String> warnings = new ArrayList<>();
    List<String> unimplemented = new ArrayList<>();
    for (Map.Entry<String, JsonNode> entry : root.properties()) {
      String name = entry.getKey();
      JsonNode value = entry.getValue();
      BiConsumer<Builder, JsonNode> reader = FIELDS.get(name);
      if (reader != null) {
        if (!value.isNull()) {
          reader.accept(builder, value);
        }
      } else if (UpstreamFields.ALL.contains(name)) {
        unimplemented.add(name);
      } else if (!name.equals("kind") && !name.equals("apiVersion")) {
        warnings.add(unsupported(name));
      }
    }
    KubeletConfiguration config = builder.build();
    if (!set(root, "nodeStatusReportFrequency") && set(root, "nodeStatusUpdateFrequency")) {
      // Upstream's backward compatibility: the report frequency follows an update frequency set.
      config =
          config.toBuilder().nodeStatusReportFrequency(config.nodeStatusUpdateFrequency()).build();
    }
    return new Loaded(config, warnings, unimplemented);
  }

  /** Whether the file gives the duration {@code field} a value other than its default's. */
  private static boolean set(JsonNode root, String field) {
    JsonNode v = root.get(field);
    return v != null && !UpstreamFields.unset(field, v, true);
  }

  private static byte[] read(Path file) {
    if (Files.isDirectory(file)) {
      throw new ConfigException(FILE_FIELD, file + " is a directory, expected a file");
    }
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(FILE_FIELD, "file " + file + " does not exist", e);
    } catch (AccessDeniedException e) {
      throw new ConfigException(FILE_FIELD, "cannot read " + file + ": permission denied", e);
    } catch (IOException e) {
      throw new ConfigException(FILE_FIELD, "cannot read " + file + ": " + e.getMessage(), e);
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
      throw new ConfigException(
          FILE_FIELD,
          file + " is not valid YAML" + where + ": " + e.getOriginalMessage().strip(),
          e);
    } catch (IOException e) {
      throw new ConfigException(FILE_FIELD, "cannot read " + file + ": " + e.getMessage(), e);
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
    for (String known : FIELDS.keySet()) {
      if (known.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        return warning + " (did you mean " + known + "?)";
      }
    }
    return warning;
  }

  private static void string(String field, BiConsumer<Builder, String> setter) {
    FIELDS.put(
        field,
        (b, v) -> {
          if (!UpstreamFields.unset(field, v, false)) {
            setter.accept(b, asString(field, v));
          }
        });
  }

  private static void integer(String field, BiConsumer<Builder, Integer> setter) {
    FIELDS.put(
        field,
        (b, v) -> {
          if (!UpstreamFields.unset(field, v, false)) {
            setter.accept(b, asInt(field, v));
          }
        });
  }

  private static void bool(String field, BiConsumer<Builder, Boolean> setter) {
    FIELDS.put(
        field,
        (b, v) -> {
          if (!v.isBoolean()) {
            throw new ConfigException(field, "expected true or false, got " + describe(v));
          }
          setter.accept(b, v.booleanValue());
        });
  }

  private static void duration(String field, BiConsumer<Builder, Duration> setter) {
    FIELDS.put(
        field,
        (b, v) -> {
          if (!UpstreamFields.unset(field, v, true)) {
            setter.accept(b, asDuration(field, v));
          }
        });
  }
}
