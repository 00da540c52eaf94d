package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigValidatorTest {

  @Test
  void acceptsDefaultsAndTheFullSample() {
    assertThatCode(() -> ConfigValidator.validate(KubeletConfiguration.defaults()))
        .doesNotThrowAnyException();
    assertThatCode(() -> ConfigValidator.validate(Samples.full())).doesNotThrowAnyException();
  }

  static Stream<Arguments> boundaryValues() {
    return Stream.<Arguments>of(
        argumentSet("lowest port", change(b -> b.set("port", 1))),
        argumentSet("highest port", change(b -> b.set("port", 65535))),
        argumentSet("read-only port disabled", change(b -> b.set("readOnlyPort", 0))),
        argumentSet("highest read-only port", change(b -> b.set("readOnlyPort", 65535))),
        argumentSet("one pod", change(b -> b.set("maxPods", 1))),
        argumentSet("one-second lease", change(b -> b.set("nodeLeaseDurationSeconds", 1))),
        argumentSet(
            "upstream's TLS names",
            change(
                b ->
                    b.set("tlsMinVersion", "VersionTLS13")
                        .set(
                            "tlsCipherSuites",
                            List.of(
                                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
                                "TLS_RSA_WITH_RC4_128_SHA",
                                "TLS_AES_128_GCM_SHA256")))),
        argumentSet(
            "one-nanosecond frequency", change(b -> b.set("syncFrequency", Duration.ofNanos(1)))),
        argumentSet(
            "zero rates",
            change(
                b ->
                    b.set("eventRecordQPS", 0)
                        .set("eventBurst", 0)
                        .set("kubeAPIQPS", 0)
                        .set("kubeAPIBurst", 0))),
        argumentSet("lowest oom_score_adj", change(b -> b.set("podInfraOomScoreAdj", -1000))),
        argumentSet("highest oom_score_adj", change(b -> b.set("podInfraOomScoreAdj", 1000))),
        argumentSet("http URL", change(b -> b.set("staticPodURL", "http://10.0.0.1:8080/pods"))),
        argumentSet(
            "upper-case scheme", change(b -> b.set("staticPodURL", "HTTPS://example.com"))));
  }

  @ParameterizedTest
  @MethodSource("boundaryValues")
  void acceptsBoundaryValues(UnaryOperator<KubeletConfigurationBuilder> change) {
    KubeletConfiguration config = change.apply(KubeletConfiguration.builder()).build();

    assertThatCode(() -> ConfigValidator.validate(config)).doesNotThrowAnyException();
  }

  static Stream<Arguments> invalidValues() {
    return Stream.of(
        argumentSet(
            "read-only port too high",
            change(b -> b.set("readOnlyPort", 70000)),
            "readOnlyPort",
            "readOnlyPort: 70000 must be between 0 and 65535, inclusive"),
        argumentSet(
            "negative read-only port",
            change(b -> b.set("readOnlyPort", -1)),
            "readOnlyPort",
            "readOnlyPort: -1 must be between 0 and 65535, inclusive"),
        argumentSet(
            "port zero",
            change(b -> b.set("port", 0)),
            "port",
            "port: 0 must be between 1 and 65535, inclusive"),
        argumentSet(
            "port too high",
            change(b -> b.set("port", 65536)),
            "port",
            "port: 65536 must be between 1 and 65535, inclusive"),
        argumentSet(
            "no pods",
            change(b -> b.set("maxPods", 0)),
            "maxPods",
            "maxPods: must be at least 1, got 0"),
        argumentSet(
            "zero sync frequency",
            change(b -> b.set("syncFrequency", Duration.ZERO)),
            "syncFrequency",
            "syncFrequency: must be greater than 0, got 0s"),
        argumentSet(
            "zero file check frequency",
            change(b -> b.set("fileCheckFrequency", Duration.ZERO)),
            "fileCheckFrequency",
            "fileCheckFrequency: must be greater than 0, got 0s"),
        argumentSet(
            "negative http check frequency",
            change(b -> b.set("httpCheckFrequency", Duration.ofSeconds(-20))),
            "httpCheckFrequency",
            "httpCheckFrequency: must be greater than 0, got -20s"),
        argumentSet(
            "zero node status update frequency",
            change(b -> b.set("nodeStatusUpdateFrequency", Duration.ZERO)),
            "nodeStatusUpdateFrequency",
            "nodeStatusUpdateFrequency: must be greater than 0, got 0s"),
        argumentSet(
            "zero node status report frequency",
            change(b -> b.set("nodeStatusReportFrequency", Duration.ZERO)),
            "nodeStatusReportFrequency",
            "nodeStatusReportFrequency: must be greater than 0, got 0s"),
        argumentSet(
            "zero lease",
            change(b -> b.set("nodeLeaseDurationSeconds", 0)),
            "nodeLeaseDurationSeconds",
            "nodeLeaseDurationSeconds: must be at least 1, got 0"),
        argumentSet(
            "negative event QPS",
            change(b -> b.set("eventRecordQPS", -1)),
            "eventRecordQPS",
            "eventRecordQPS: -1 must not be a negative number"),
        argumentSet(
            "negative event burst",
            change(b -> b.set("eventBurst", -1)),
            "eventBurst",
            "eventBurst: -1 must not be a negative number"),
        argumentSet(
            "negative API QPS",
            change(b -> b.set("kubeAPIQPS", -1)),
            "kubeAPIQPS",
            "kubeAPIQPS: -1 must not be a negative number"),
        argumentSet(
            "negative API burst",
            change(b -> b.set("kubeAPIBurst", -1)),
            "kubeAPIBurst",
            "kubeAPIBurst: -1 must not be a negative number"),
        argumentSet(
            "unknown cipher suite",
            change(
                b ->
                    b.set(
                        "tlsCipherSuites",
                        List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_NULL_WITH_NULL"))),
            "tlsCipherSuites",
            "tlsCipherSuites: Cipher suite TLS_NULL_WITH_NULL not supported or doesn't exist"),
        argumentSet(
            "Java's name of a ChaCha20 suite",
            change(
                b ->
                    b.set(
                        "tlsCipherSuites", List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"))),
            "tlsCipherSuites",
            "tlsCipherSuites: Cipher suite TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 not supported"
                + " or doesn't exist"),
        argumentSet(
            "unknown TLS version",
            change(b -> b.set("tlsMinVersion", "TLSv1.2")),
            "tlsMinVersion",
            "tlsMinVersion: unknown tls version \"TLSv1.2\""),
        argumentSet(
            "oom_score_adj too low",
            change(b -> b.set("podInfraOomScoreAdj", -1001)),
            "podInfraOomScoreAdj",
            "podInfraOomScoreAdj: -1001 must be between -1000 and 1000, inclusive"),
        argumentSet(
            "oom_score_adj too high",
            change(b -> b.set("podInfraOomScoreAdj", 1001)),
            "podInfraOomScoreAdj",
            "podInfraOomScoreAdj: 1001 must be between -1000 and 1000, inclusive"),
        argumentSet(
            "URL with another scheme",
            change(b -> b.set("staticPodURL", "ftp://example.com/pods")),
            "staticPodURL",
            "staticPodURL: must be an http:// or https:// URL, got \"ftp://example.com/pods\""),
        argumentSet(
            "URL without scheme",
            change(b -> b.set("staticPodURL", "example.com/pods")),
            "staticPodURL",
            "staticPodURL: must be an http:// or https:// URL, got \"example.com/pods\""),
        argumentSet(
            "image GC high threshold over 100",
            change(b -> b.set("imageGCHighThresholdPercent", 101)),
            "imageGCHighThresholdPercent",
            "imageGCHighThresholdPercent: 101 must be between 0 and 100, inclusive"),
        argumentSet(
            "image GC low threshold below 0",
            change(b -> b.set("imageGCLowThresholdPercent", -1)),
            "imageGCLowThresholdPercent",
            "imageGCLowThresholdPercent: -1 must be between 0 and 100, inclusive"),
        argumentSet(
            "image GC low threshold not below the high one",
            change(b -> b.set("imageGCLowThresholdPercent", 85)),
            "imageGCLowThresholdPercent",
            "imageGCLowThresholdPercent: 85 must be less than imageGCHighThresholdPercent"
                + " (--image-gc-high-threshold) 85"),
        argumentSet(
            "negative minimum container age",
            change(b -> b.set("minimumContainerTtl", Duration.ofSeconds(-1))),
            "minimumContainerTtl",
            "minimumContainerTtl: invalid minimum garbage collection age: -1s"),
        argumentSet(
            "URL without host",
            change(b -> b.set("staticPodURL", "http:///pods")),
            "staticPodURL",
            "staticPodURL: must be an http:// or https:// URL, got \"http:///pods\""));
  }

  @ParameterizedTest
  @MethodSource("invalidValues")
  void rejectsInvalidValuesNamingTheField(
      UnaryOperator<KubeletConfigurationBuilder> change, String field, String message) {
    KubeletConfiguration config = change.apply(KubeletConfiguration.builder()).build();

    assertThatThrownBy(() -> ConfigValidator.validate(config))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.field()).isEqualTo(field))
        .hasMessage(message);
  }

  @Test
  void unparsableUrlIsRejected() {
    KubeletConfiguration config =
        KubeletConfiguration.builder().set("staticPodURL", "http://exa mple.com/").build();

    assertThatThrownBy(() -> ConfigValidator.validate(config))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "staticPodURL: must be an http:// or https:// URL, got \"http://exa mple.com/\"");
  }

  private static UnaryOperator<KubeletConfigurationBuilder> change(
      UnaryOperator<KubeletConfigurationBuilder> change) {
    return change;
  }
}
