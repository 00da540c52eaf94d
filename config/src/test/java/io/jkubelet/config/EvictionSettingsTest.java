package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.jkubelet.config.EvictionSettings.Amount;
import io.jkubelet.config.EvictionSettings.Percentage;
import io.jkubelet.config.EvictionSettings.Signal;
import io.jkubelet.config.EvictionSettings.Threshold;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EvictionSettingsTest {
  @TempDir Path dir;

  @Test
  void upstreamsDefaultsAreFourHardThresholdsAndAllocatableWithPods() {
    List<Threshold> t = EvictionSettings.DEFAULTS.thresholds(true);

    assertThat(t)
        .containsExactlyInAnyOrder(
            new Threshold(
                Signal.MEMORY_AVAILABLE, new Amount(100L << 20), Duration.ZERO, Optional.empty()),
            new Threshold(
                Signal.NODEFS_AVAILABLE, new Percentage(0.1f), Duration.ZERO, Optional.empty()),
            new Threshold(
                Signal.NODEFS_INODES_FREE, new Percentage(0.05f), Duration.ZERO, Optional.empty()),
            new Threshold(
                Signal.IMAGEFS_AVAILABLE, new Percentage(0.15f), Duration.ZERO, Optional.empty()),
            new Threshold(
                Signal.ALLOCATABLE_MEMORY_AVAILABLE,
                new Amount(100L << 20),
                Duration.ZERO,
                Optional.empty()));
    assertThat(EvictionSettings.DEFAULTS.thresholds(false)).hasSize(4);
    assertThat(EvictionSettings.DEFAULTS.evictionPressureTransitionPeriod())
        .isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void softThresholdsTakeTheirGracePeriodAndMinimumReclaim() {
    EvictionSettings s =
        eviction(
            Map.of("memory.available", "1Gi", "nodefs.available", "0%"),
            Map.of("memory.available", "2Gi"),
            Map.of("memory.available", "1m30s"),
            Map.of("memory.available", "5%"));

    assertThat(s.thresholds(false))
        .containsExactly(
            new Threshold(
                Signal.MEMORY_AVAILABLE,
                new Amount(1L << 30),
                Duration.ZERO,
                Optional.of(new Percentage(0.05f))),
            new Threshold(
                Signal.MEMORY_AVAILABLE,
                new Amount(2L << 30),
                Duration.ofSeconds(90),
                Optional.of(new Percentage(0.05f))));
    assertThat(new Percentage(0.1f).resolve(1000)).isEqualTo(100);
  }

  @Test
  void allocatableMemoryIsASignalAUserMayGiveAsUpstreamsValidSignal() {
    EvictionSettings s =
        eviction(
            EvictionSettings.DEFAULT_HARD,
            Map.of("allocatableMemory.available", "500Mi"),
            Map.of("allocatableMemory.available", "10s"),
            Map.of("allocatableMemory.available", "400Mi"));

    assertThat(s.thresholds(false))
        .contains(
            new Threshold(
                Signal.ALLOCATABLE_MEMORY_AVAILABLE,
                new Amount(500L << 20),
                Duration.ofSeconds(10),
                Optional.of(new Amount(400L << 20))));
  }

  static Stream<Arguments> bad() {
    return Stream.of(
        argumentSet(
            "unknown signal",
            Map.of("memory.free", "1Gi"),
            "evictionHard: unsupported eviction signal memory.free"),
        argumentSet(
            "zero quantity",
            Map.of("memory.available", "0"),
            "evictionHard: eviction threshold memory.available must be positive: 0"),
        argumentSet(
            "over 100%",
            Map.of("nodefs.available", "101%"),
            "evictionHard: eviction percentage threshold nodefs.available must be <= 100%: 101%"),
        argumentSet(
            "not a quantity",
            Map.of("memory.available", "lots"),
            "evictionHard.memory.available: quantities must match"));
  }

  @ParameterizedTest
  @MethodSource("bad")
  void badHardThresholdsNameTheFieldAsUpstream(Map<String, String> hard, String message) {
    assertThatThrownBy(() -> eviction(hard, Map.of(), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void aSoftThresholdWithoutGracePeriodFailsValidationOnce() {
    EvictionSettings s =
        eviction(
            EvictionSettings.DEFAULT_HARD, Map.of("memory.available", "1Gi"), Map.of(), Map.of());

    assertThatThrownBy(s::validate)
        .hasMessage(
            "evictionSoftGracePeriod: grace period must be specified for the soft eviction"
                + " threshold memory.available");
  }

  @Test
  void reservationsAcceptUpstreamsFourResourcesOnly() {
    ReservationSettings r =
        new ReservationSettings(
            Map.of("cpu", "500m", "memory", "1Gi", "ephemeral-storage", "1G"),
            Map.of("memory", "512Mi", "pid", "100"));

    assertThat(r.reserved("cpu")).isEqualTo(500);
    assertThat(r.reserved("memory")).isEqualTo(1536L << 20);
    assertThat(r.reserved("ephemeral-storage")).isEqualTo(1_000_000_000L);
    assertThat(r.reserved("pid")).isEqualTo(100);
    assertThatThrownBy(() -> new ReservationSettings(Map.of("gpu", "1"), Map.of()))
        .hasMessage("kubeReserved: cannot reserve \"gpu\" resource");
    assertThatThrownBy(() -> new ReservationSettings(Map.of(), Map.of("memory", "-1Gi")))
        .hasMessage("systemReserved: resource quantity for \"memory\" cannot be negative: -1Gi");
  }

  @Test
  void theFileSetsEveryFieldAndAnEmptyEvictionHardHasNoThresholds() throws IOException {
    Path f = dir.resolve("c.yaml");
    Files.writeString(
        f,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        kubeReserved:
          memory: 2Gi
        systemReserved:
          cpu: 100m
        evictionHard: {}
        evictionSoft:
          nodefs.available: 20%
        evictionSoftGracePeriod:
          nodefs.available: 10s
        evictionMinimumReclaim:
          nodefs.available: 1Gi
        evictionPressureTransitionPeriod: 30s
        evictionMaxPodGracePeriod: 20
        """);

    ConfigLoader.Loaded loaded = ConfigLoader.load(f);

    KubeletConfiguration c = loaded.config();
    assertThat(loaded.unimplemented()).isEmpty();
    assertThat(c.resources().reservations().kube("memory")).isEqualTo(2L << 30);
    assertThat(c.resources().reservations().system("cpu")).isEqualTo(100);
    assertThat(c.resources().eviction().thresholds(true))
        .containsExactly(
            new Threshold(
                Signal.NODEFS_AVAILABLE,
                new Percentage(0.2f),
                Duration.ofSeconds(10),
                Optional.of(new Amount(1L << 30))));
    assertThat(c.resources().eviction().evictionPressureTransitionPeriod())
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(c.resources().eviction().evictionMaxPodGracePeriod()).isEqualTo(20);
    ConfigValidator.validate(c);
  }

  @Test
  void quantitiesParseAsUpstream() {
    assertThat(Quantities.ceil(Quantities.parse("1.5Gi"))).isEqualTo(3L << 29);
    assertThat(Quantities.milli(Quantities.parse("0.1"))).isEqualTo(100);
    assertThat(Quantities.ceil(Quantities.parse("1e3"))).isEqualTo(1000);
    assertThat(Quantities.milli(Quantities.parse("250m"))).isEqualTo(250);
  }

  private static EvictionSettings eviction(
      Map<String, String> hard,
      Map<String, String> soft,
      Map<String, String> grace,
      Map<String, String> reclaim) {
    return new EvictionSettings(hard, soft, grace, reclaim, Duration.ofMinutes(5), 0);
  }
}
