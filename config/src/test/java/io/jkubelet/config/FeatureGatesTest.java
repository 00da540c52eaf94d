package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FeatureGatesTest {
  @Test
  void anUnknownGateIsRefusedWithUpstreamsMessage() {
    assertThatThrownBy(() -> FeatureGates.check("--feature-gates", Map.of("NoSuchGate", true)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--feature-gates: unrecognized feature gate: NoSuchGate");
    assertThatThrownBy(() -> FeatureGates.check("featureGates", Map.of("NodeLease", false)))
        .hasMessage(
            "featureGates: cannot set feature gate NodeLease to false, feature is locked to true");
  }

  @Test
  void theFlagTakesUpstreamsSyntax() {
    assertThat(Type.BOOL_MAP.fromFlag("--feature-gates", List.of("A=true, B=f", "A=0")))
        .isEqualTo(Map.of("A", false, "B", false));
    assertThatThrownBy(() -> Type.BOOL_MAP.fromFlag("--feature-gates", List.of("A")))
        .hasMessage("--feature-gates: missing bool value for A");
    assertThatThrownBy(() -> Type.BOOL_MAP.fromFlag("--feature-gates", List.of("A=maybe")))
        .hasMessage(
            "--feature-gates: invalid value of A=maybe, err: strconv.ParseBool: parsing"
                + " \"maybe\": invalid syntax");
  }

  @Test
  void aGateIsItsValueElseAllAlphaOrAllBetaElseItsDefault() {
    assertThat(FeatureGates.enabled(Map.of(), "CustomCPUCFSQuotaPeriod")).isFalse();
    assertThat(FeatureGates.enabled(Map.of("AllAlpha", true), "CustomCPUCFSQuotaPeriod")).isTrue();
    assertThat(FeatureGates.enabled(Map.of("AllBeta", false), "RotateKubeletServerCertificate"))
        .isFalse();
    assertThat(FeatureGates.enabled(Map.of("AllAlpha", true), "RotateKubeletServerCertificate"))
        .isTrue();
  }

  @Test
  void theGatesJkubeletHonoursRuleAsUpstreamsValidation() {
    KubeletConfiguration period =
        KubeletConfiguration.builder().set("cpuCFSQuotaPeriod", Duration.ofMillis(50)).build();
    assertThatThrownBy(() -> FeatureGates.validate(period))
        .hasMessage("cpuCFSQuotaPeriod: 50ms requires feature gate CustomCPUCFSQuotaPeriod");
    FeatureGates.validate(
        period.toBuilder().set("featureGates", Map.of("CustomCPUCFSQuotaPeriod", true)).build());
    KubeletConfiguration serving =
        KubeletConfiguration.builder()
            .set("serverTLSBootstrap", true)
            .set("featureGates", Map.of("RotateKubeletServerCertificate", false))
            .build();
    assertThatThrownBy(() -> FeatureGates.validate(serving))
        .hasMessage(
            "serverTLSBootstrap: true requires feature gate RotateKubeletServerCertificate");
  }

  @Test
  void theGatesJkubeletDoesNotHonourAreNamedOnceAndGaOnesWarnedAsUpstream() {
    assertThat(FeatureGates.notices(Map.of("AppArmor", true)))
        .containsExactly(
            "--feature-gates: AppArmor=true accepted without effect: jkubelet does not implement"
                + " this feature or its gate");
    assertThat(FeatureGates.notices(Map.of("NodeLease", true)))
        .containsExactly(
            "Setting GA feature gate NodeLease=true. It will be removed in a future release.");
  }
}
