package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two fields of graceful node shutdown, read and checked as upstream's, and their gate. */
class ShutdownSettingsTest {
  @TempDir Path tmp;

  private KubeletConfiguration load(String yaml) throws IOException {
    Path f = tmp.resolve("config.yaml");
    Files.writeString(
        f, "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + yaml + "\n");
    return ConfigLoader.load(f).config();
  }

  @Test
  void theFieldsAreReadFromTheFileAndOffByDefault() throws IOException {
    assertThat(KubeletConfiguration.defaults().node().shutdown().enabled()).isFalse();
    assertThat(Settings.named("shutdownGracePeriod").orElseThrow().flags())
        .as("file only")
        .isEmpty();
    assertThat(Settings.named("shutdownGracePeriodCriticalPods").orElseThrow().flags()).isEmpty();
    KubeletConfiguration c = load("shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s");
    assertThat(c.node().shutdown().shutdownGracePeriod()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.node().shutdown().nonCriticalPods()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.node().shutdown().enabled()).isTrue();
    ConfigValidator.validate(c);
    FeatureGates.validate(c);
  }

  @Test
  void upstreamsRulesWithItsWords() throws IOException {
    assertThatThrownBy(
            () ->
                ConfigValidator.validate(
                    load("shutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 20s")))
        .hasMessage(
            "shutdownGracePeriodCriticalPods: invalid configuration: ShutdownGracePeriod 10s must"
                + " be >= 0, ShutdownGracePeriodCriticalPods 20s must be >= 0, and"
                + " ShutdownGracePeriodCriticalPods 20s must be <= ShutdownGracePeriod 10s");
    assertThatThrownBy(() -> ConfigValidator.validate(load("shutdownGracePeriod: 500ms")))
        .hasMessage(
            "shutdownGracePeriod: invalid configuration: ShutdownGracePeriod 500ms must be either"
                + " zero or otherwise >= 1 sec");
  }

  @Test
  void theGateIsOnUnlessTurnedOffAndThenTheFieldsAreRefused() throws IOException {
    assertThat(FeatureGates.gracefulNodeShutdown(Map.of())).isTrue();
    assertThat(FeatureGates.gracefulNodeShutdown(Map.of("AllAlpha", false))).isFalse();
    assertThat(FeatureGates.gracefulNodeShutdown(Map.of("GracefulNodeShutdown", true))).isTrue();
    KubeletConfiguration off =
        load("shutdownGracePeriod: 30s\nfeatureGates:\n  GracefulNodeShutdown: false");
    assertThatThrownBy(() -> FeatureGates.validate(off))
        .hasMessage(
            "shutdownGracePeriod: invalid configuration: Specifying ShutdownGracePeriod or"
                + " ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown");
    assertThat(FeatureGates.notices(Map.of("GracefulNodeShutdown", true))).isEmpty();
  }
}
