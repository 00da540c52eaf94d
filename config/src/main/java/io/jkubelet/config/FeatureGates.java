package io.jkubelet.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Upstream v1.20's feature gates ({@code --feature-gates}, {@code featureGates}): the known gates
 * with their defaults, stages and locks, read from {@code feature-gates.txt} (made from upstream's
 * {@code pkg/features/kube_features.go}), checked as component-base's {@code
 * featureGate.SetFromMap} checks them, with its messages; and which of them jkubelet honours
 * ({@link #HONOURED}).
 *
 * <p>Thread-safe: immutable after the class is loaded.
 */
public final class FeatureGates {
  /** A gate as upstream declares it. */
  public record Gate(String name, boolean defaultValue, String stage, boolean locked) {}

  /** The gates upstream knows, by name, in upstream's order. */
  public static final Map<String, Gate> KNOWN = load();

  /**
   * The gates whose state jkubelet follows: a rule of upstream's validation that jkubelet applies
   * ({@link #validate}), or a feature jkubelet always has and upstream locks on. Any other gate
   * given is accepted, checked, and logged once as without effect.
   */
  public static final Set<String> HONOURED =
      Set.of(
          "RotateKubeletServerCertificate",
          "CustomCPUCFSQuotaPeriod",
          "RotateKubeletClientCertificate",
          "NodeLease",
          "SupportPodPidsLimit",
          "StartupProbe",
          "GracefulNodeShutdown");

  private FeatureGates() {}

  private static Map<String, Gate> load() {
    Map<String, Gate> gates = new LinkedHashMap<>();
    try (InputStream in = FeatureGates.class.getResourceAsStream("feature-gates.txt")) {
      Objects.requireNonNull(in, "feature-gates.txt");
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.strip().split("\\s+");
        gates.put(
            f[0],
            new Gate(
                f[0], Boolean.parseBoolean(f[1]), f[2], f.length > 3 && f[3].equals("locked")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Collections.unmodifiableMap(gates);
  }

  /**
   * Checks the gates given, as upstream's {@code SetFromMap}: each known, a locked one only at its
   * default.
   *
   * @throws ConfigException naming {@code field}, with upstream's message ({@code unrecognized
   *     feature gate: X}, {@code cannot set feature gate X to false, feature is locked to true})
   */
  public static void check(String field, Map<String, Boolean> given) {
    for (Map.Entry<String, Boolean> e : given.entrySet()) {
      Gate g = KNOWN.get(e.getKey());
      if (g == null) {
        throw new ConfigException(field, "unrecognized feature gate: " + e.getKey());
      }
      if (g.locked() && g.defaultValue() != e.getValue()) {
        throw new ConfigException(
            field,
            "cannot set feature gate "
                + g.name()
                + " to "
                + e.getValue()
                + ", feature is locked to "
                + g.defaultValue());
      }
    }
  }

  /**
   * Whether {@code gate} is on with {@code given}: its own value, else {@code AllAlpha} or {@code
   * AllBeta} for a gate of that stage, else its default.
   */
  public static boolean enabled(Map<String, Boolean> given, String gate) {
    Gate g = Objects.requireNonNull(KNOWN.get(gate), gate);
    Boolean v = given.get(gate);
    if (v != null) {
      return v;
    }
    Boolean all =
        switch (g.stage()) {
          case "ALPHA" -> given.get("AllAlpha");
          case "BETA" -> given.get("AllBeta");
          default -> null;
        };
    return all != null ? all : g.defaultValue();
  }

  /**
   * The lines to log once at start for the gates given: upstream's warnings for a GA or deprecated
   * gate, and one line naming the gates jkubelet does not honour.
   */
  public static List<String> notices(Map<String, Boolean> given) {
    List<String> out = new ArrayList<>();
    List<String> without = new ArrayList<>();
    given.forEach(
        (name, v) -> {
          Gate g = KNOWN.get(name);
          if (g != null && (g.stage().equals("GA") || g.stage().equals("DEPRECATED"))) {
            out.add(
                "Setting "
                    + (g.stage().equals("GA") ? "GA" : "deprecated")
                    + " feature gate "
                    + name
                    + "="
                    + v
                    + ". It will be removed in a future release.");
          }
          if (!HONOURED.contains(name)) {
            without.add(name + "=" + v);
          }
        });
    if (!without.isEmpty()) {
      out.add(
          "--feature-gates: "
              + String.join(",", without)
              + " accepted without effect: jkubelet does not implement "
              + (without.size() == 1 ? "this feature" : "these features")
              + " or its gate");
    }
    return out;
  }

  /**
   * Whether graceful node shutdown may run: the {@code GracefulNodeShutdown} gate as given (or
   * {@code AllAlpha}), and on when neither is given. Upstream v1.20's gate is alpha and off;
   * jkubelet has it on by default, as v1.21 (beta), so that setting {@code shutdownGracePeriod} is
   * enough, and honours it when it is turned off.
   */
  public static boolean gracefulNodeShutdown(Map<String, Boolean> given) {
    return !given.containsKey(GRACEFUL_NODE_SHUTDOWN) && !given.containsKey("AllAlpha")
        || enabled(given, GRACEFUL_NODE_SHUTDOWN);
  }

  private static final String GRACEFUL_NODE_SHUTDOWN = "GracefulNodeShutdown";

  /**
   * Upstream's validation rules that depend on gates, for the settings jkubelet has, with
   * upstream's messages.
   *
   * @throws ConfigException naming the field
   */
  public static void validate(KubeletConfiguration c) {
    Map<String, Boolean> g = c.node().featureGates();
    if (!enabled(g, "CustomCPUCFSQuotaPeriod")
        && !c.resources()
            .cgroups()
            .cpuCFSQuotaPeriod()
            .equals(CgroupSettings.DEFAULTS.cpuCFSQuotaPeriod())) {
      throw new ConfigException(
          "cpuCFSQuotaPeriod",
          Durations.format(c.resources().cgroups().cpuCFSQuotaPeriod())
              + " requires feature gate CustomCPUCFSQuotaPeriod");
    }
    ShutdownSettings shutdown = c.node().shutdown();
    if (!gracefulNodeShutdown(g)
        && (shutdown.shutdownGracePeriod().isPositive()
            || shutdown.shutdownGracePeriodCriticalPods().isPositive())) {
      throw new ConfigException(
          shutdown.shutdownGracePeriod().isPositive()
              ? "shutdownGracePeriod"
              : "shutdownGracePeriodCriticalPods",
          "invalid configuration: Specifying ShutdownGracePeriod or"
              + " ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown");
    }
    if (c.node().certificates().serverTLSBootstrap()
        && !enabled(g, "RotateKubeletServerCertificate")) {
      throw new ConfigException(
          "serverTLSBootstrap", "true requires feature gate RotateKubeletServerCertificate");
    }
  }
}
