package io.jkubelet.agent.cli;

import io.jkubelet.config.ConfigException;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * Upstream's reservation and eviction flags (a picocli mixin of {@code run}): each overlays its
 * configuration field, so a flag given wins over the file, and a map flag replaces the file's whole
 * map, as upstream's. {@code --eviction-hard} and {@code --eviction-soft} are written {@code
 * memory.available<100Mi,nodefs.available<10%}; the others {@code key=value,...}.
 */
final class EvictionFlags {
  @Option(
      names = "--kube-reserved",
      paramLabel = "RESOURCE=QUANTITY,...",
      description =
          "What is held back for Kubernetes' daemons: cpu, memory, ephemeral-storage, pid"
              + " (kubeReserved, default none).")
  String kubeReserved;

  @Option(
      names = "--system-reserved",
      paramLabel = "RESOURCE=QUANTITY,...",
      description = "What is held back for the system (systemReserved, default none).")
  String systemReserved;

  @Option(
      names = "--eviction-hard",
      paramLabel = "SIGNAL<VALUE,...",
      description =
          "Hard eviction thresholds (evictionHard, default memory.available<100Mi,"
              + "nodefs.available<10%,nodefs.inodesFree<5%,imagefs.available<15%).")
  String evictionHard;

  @Option(
      names = "--eviction-soft",
      paramLabel = "SIGNAL<VALUE,...",
      description = "Soft eviction thresholds, each with a grace period (evictionSoft).")
  String evictionSoft;

  @Option(
      names = "--eviction-soft-grace-period",
      paramLabel = "SIGNAL=DURATION,...",
      description = "How long a soft threshold must hold (evictionSoftGracePeriod).")
  String evictionSoftGracePeriod;

  @Option(
      names = "--eviction-minimum-reclaim",
      paramLabel = "SIGNAL=QUANTITY,...",
      description = "What an eviction frees beyond its threshold (evictionMinimumReclaim).")
  String evictionMinimumReclaim;

  @Option(
      names = "--eviction-pressure-transition-period",
      paramLabel = "DURATION",
      converter = RunCommand.DurationConverter.class,
      description =
          "How long a pressure condition stays after its threshold was last met"
              + " (evictionPressureTransitionPeriod, default 5m).")
  Duration pressureTransitionPeriod;

  @Option(
      names = "--eviction-max-pod-grace-period",
      paramLabel = "SECONDS",
      description =
          "The most seconds a pod evicted by a soft threshold gets to stop; 0 for its own"
              + " (evictionMaxPodGracePeriod, default 0).")
  Integer maxPodGracePeriod;

  /** Sets the configuration fields of the flags that were given. */
  void overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    set(
        flagOf,
        kubeReserved,
        "kubeReserved",
        "--kube-reserved",
        '=',
        v -> b.reservations(b.reservations().withKubeReserved(v)));
    set(
        flagOf,
        systemReserved,
        "systemReserved",
        "--system-reserved",
        '=',
        v -> b.reservations(b.reservations().withSystemReserved(v)));
    set(
        flagOf,
        evictionHard,
        "evictionHard",
        "--eviction-hard",
        '<',
        v -> b.eviction(b.eviction().withEvictionHard(v)));
    set(
        flagOf,
        evictionSoft,
        "evictionSoft",
        "--eviction-soft",
        '<',
        v -> b.eviction(b.eviction().withEvictionSoft(v)));
    set(
        flagOf,
        evictionSoftGracePeriod,
        "evictionSoftGracePeriod",
        "--eviction-soft-grace-period",
        '=',
        v -> b.eviction(b.eviction().withEvictionSoftGracePeriod(v)));
    set(
        flagOf,
        evictionMinimumReclaim,
        "evictionMinimumReclaim",
        "--eviction-minimum-reclaim",
        '=',
        v -> b.eviction(b.eviction().withEvictionMinimumReclaim(v)));
    guarded(
        "--eviction-pressure-transition-period",
        () ->
            RunCommand.overlay(
                flagOf,
                pressureTransitionPeriod,
                "evictionPressureTransitionPeriod",
                "--eviction-pressure-transition-period",
                v -> b.eviction(b.eviction().withEvictionPressureTransitionPeriod(v))));
    guarded(
        "--eviction-max-pod-grace-period",
        () ->
            RunCommand.overlay(
                flagOf,
                maxPodGracePeriod,
                "evictionMaxPodGracePeriod",
                "--eviction-max-pod-grace-period",
                v -> b.eviction(b.eviction().withEvictionMaxPodGracePeriod(v))));
  }

  private static void set(
      Map<String, String> flagOf,
      String value,
      String field,
      String flag,
      char separator,
      Consumer<Map<String, String>> apply) {
    if (value == null) {
      return;
    }
    guarded(
        flag, () -> RunCommand.overlay(flagOf, map(flag, value, separator), field, flag, apply));
  }

  /** Runs {@code r}; a configuration error it throws names {@code flag}. */
  private static void guarded(String flag, Runnable r) {
    try {
      r.run();
    } catch (ConfigException e) {
      throw new ConfigException(flag, e.problem(), e);
    }
  }

  /**
   * A map flag's value, as upstream's {@code MapStringString} ({@code '='}) or {@code
   * LangleSeparatedMapStringString} ({@code '<'}): comma-separated pairs; "" is the empty map.
   */
  static Map<String, String> map(String flag, String value, char separator) {
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
