package io.jkubelet.agent.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's request-to-SubjectAccessReview mapping ({@code auth_test.go} cases). */
class AttributesTest {
  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("GET", "/stats/summary", "get", "stats"),
        Arguments.of("GET", "/stats", "get", "stats"),
        Arguments.of("GET", "/statsfoo", "get", "proxy"),
        Arguments.of("GET", "/metrics", "get", "metrics"),
        Arguments.of("GET", "/metrics/cadvisor", "get", "metrics"),
        Arguments.of("GET", "/metricsfoo", "get", "proxy"),
        Arguments.of("GET", "/logs/", "get", "log"),
        Arguments.of("GET", "/logs/syslog", "get", "log"),
        Arguments.of("GET", "/spec/", "get", "spec"),
        Arguments.of("GET", "/containerLogs/ns/pod/c", "get", "proxy"),
        Arguments.of("POST", "/exec/ns/pod/c", "create", "proxy"),
        Arguments.of("PUT", "/pods", "update", "proxy"),
        Arguments.of("PATCH", "/pods", "patch", "proxy"),
        Arguments.of("DELETE", "/pods", "delete", "proxy"),
        Arguments.of("OPTIONS", "/pods", "", "proxy"));
  }

  @ParameterizedTest(name = "{0} {1} -> {2} nodes/{3}")
  @MethodSource("cases")
  void mapsMethodAndPath(String method, String path, String verb, String subresource) {
    assertThat(Attributes.of(method, path, "node-a"))
        .isEqualTo(new Attributes(verb, "nodes", subresource, "node-a", path));
  }
}
