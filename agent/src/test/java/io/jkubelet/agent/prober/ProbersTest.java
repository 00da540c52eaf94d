package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProbersTest {
  private static final ProbeHttp HTTP =
      new ProbeHttp(Prober.MAX_BODY_BYTES); // never started: only built
  private static final FakeExecRunner EXEC = new FakeExecRunner();
  private static final Container CONTAINER =
      new ContainerBuilder()
          .withName("web")
          .addNewPort()
          .withName("http")
          .withContainerPort(8080)
          .endPort()
          .build();

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.argumentSet(
            "port zero",
            new ProbeBuilder()
                .withNewTcpSocket()
                .withPort(new IntOrString(0))
                .endTcpSocket()
                .build(),
            "tcpSocket.port: port 0 out of range: must be between 1 and 65535, inclusive"),
        Arguments.argumentSet(
            "port too high",
            new ProbeBuilder()
                .withNewHttpGet()
                .withPort(new IntOrString(65536))
                .endHttpGet()
                .build(),
            "httpGet.port: port 65536 out of range"),
        Arguments.argumentSet(
            "named port resolving out of range",
            new ProbeBuilder()
                .withNewHttpGet()
                .withPort(new IntOrString("70000"))
                .endHttpGet()
                .build(),
            "port 70000 out of range"),
        Arguments.argumentSet(
            "empty exec command",
            new ProbeBuilder().withNewExec().withCommand(List.of()).endExec().build(),
            "exec.command: must not be empty"),
        Arguments.argumentSet(
            "unknown named port",
            new ProbeBuilder()
                .withNewHttpGet()
                .withPort(new IntOrString("metrics"))
                .endHttpGet()
                .build(),
            "httpGet.port: named port \"metrics\" not found in the ports of container \"web\""),
        Arguments.argumentSet(
            "no handler",
            new ProbeBuilder().withPeriodSeconds(5).build(),
            "must specify a handler type"),
        Arguments.argumentSet(
            "two handlers",
            new ProbeBuilder()
                .withNewExec()
                .withCommand("true")
                .endExec()
                .withNewTcpSocket()
                .withPort(new IntOrString(80))
                .endTcpSocket()
                .build(),
            "may not specify more than 1 handler type, got [exec, tcpSocket]"),
        Arguments.argumentSet(
            "bad scheme",
            new ProbeBuilder()
                .withNewHttpGet()
                .withPort(new IntOrString(80))
                .withScheme("FTP")
                .endHttpGet()
                .build(),
            "httpGet.scheme: unsupported value \"FTP\""),
        Arguments.argumentSet(
            "negative period",
            new ProbeBuilder()
                .withPeriodSeconds(-1)
                .withNewExec()
                .withCommand("true")
                .endExec()
                .build(),
            "periodSeconds must not be negative: -1"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidDefinitionsSayWhatIsWrong(Probe probe, String message) {
    ProbeDefinition d = Probers.of(probe, CONTAINER, EXEC, HTTP);
    assertThat(d).isInstanceOf(ProbeDefinition.InvalidProbe.class);
    assertThat(((ProbeDefinition.InvalidProbe) d).message())
        .startsWith("invalid probe: ")
        .contains(message);
  }

  @Test
  void namedPortIsResolvedAndDefaultsApplied() {
    Probe probe =
        new ProbeBuilder()
            .withNewHttpGet()
            .withPort(new IntOrString("http"))
            .withPath("healthz")
            .endHttpGet()
            .withInitialDelaySeconds(5)
            .build();
    ProbeDefinition d = Probers.of(probe, CONTAINER, EXEC, HTTP);
    ProbeDefinition.Valid valid = (ProbeDefinition.Valid) d;
    Prober.HttpGetProber http = (Prober.HttpGetProber) valid.prober();
    assertThat(http.port()).isEqualTo(8080);
    assertThat(http.uri("10.0.0.7").toString()).isEqualTo("http://10.0.0.7:8080/healthz");
    assertThat(http.uri("fd00::7").toString()).isEqualTo("http://[fd00::7]:8080/healthz");
    assertThat(valid.settings())
        .isEqualTo(
            new ProbeSettings(
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(1), 1, 3));
  }

  @Test
  void everyKindIsBuilt() {
    String kinds =
        Stream.of(
                new ProbeBuilder().withNewExec().withCommand("cat", "/tmp/ok").endExec().build(),
                new ProbeBuilder()
                    .withNewTcpSocket()
                    .withPort(new IntOrString("http"))
                    .endTcpSocket()
                    .build())
            .map(p -> ((ProbeDefinition.Valid) Probers.of(p, CONTAINER, EXEC, HTTP)).prober())
            .map(
                p ->
                    switch (p) {
                      case Prober.ExecProber e -> "exec " + e.command();
                      case Prober.TcpSocketProber t -> "tcp " + t.port();
                      case Prober.HttpGetProber h -> "http " + h.port();
                    })
            .reduce((a, b) -> a + ", " + b)
            .orElseThrow();
    assertThat(kinds).isEqualTo("exec [cat, /tmp/ok], tcp 8080");
  }

  @Test
  void grpcIsRefusedAsUnsupportedNotPassedSilently() {
    assertThat(
            Probers.of(
                new ProbeBuilder().withNewGrpc().withPort(9090).endGrpc().build(),
                CONTAINER,
                EXEC,
                HTTP))
        .isEqualTo(new ProbeDefinition.InvalidProbe(Probers.GRPC_UNSUPPORTED));
  }
}
