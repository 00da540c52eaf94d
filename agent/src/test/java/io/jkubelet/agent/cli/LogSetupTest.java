package io.jkubelet.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class LogSetupTest {
  /** What the configured context writes to stderr while {@code body} runs. */
  private static String stderrOf(Runnable body) {
    PrintStream before = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(before);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void oneLinePerMessageOnStderrWithThePodFromTheMdc() {
    LoggerContext ctx = new LoggerContext();
    ctx.setMDCAdapter(MDC.getMDCAdapter());
    assertThat(new LogSetup().configure(ctx, null))
        .isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    String out =
        stderrOf(
            () -> {
              var log = ctx.getLogger("io.jkubelet.agent.Some");
              log.debug("not at INFO");
              log.info("no pod");
              MDC.put("pod", "ns/web");
              try {
                log.warn("with pod");
              } finally {
                MDC.remove("pod");
              }
              ctx.getLogger("org.apache.hc.client5.Wire").info("library INFO is hidden");
            });
    assertThat(out.lines().toList())
        .hasSize(2)
        .satisfiesExactly(
            l ->
                assertThat(l)
                    .matches(
                        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)"
                            + " INFO  \\[.+\\] no pod"),
            l ->
                assertThat(l)
                    .endsWith(
                        " WARN  [" + Thread.currentThread().getName() + "] pod=ns/web with pod"));
    ctx.stop();
  }

  @Test
  void aConfigurationFileNamedByThePropertyIsLeftToLogback() {
    assertThat(new LogSetup().configure(new LoggerContext(), "custom.xml"))
        .isEqualTo(ExecutionStatus.INVOKE_NEXT_IF_ANY);
  }

  @Test
  void logbackFindsItAsAService() {
    assertThat(
            ServiceLoader.load(ch.qos.logback.classic.spi.Configurator.class).stream()
                .map(ServiceLoader.Provider::type))
        .contains(LogSetup.class);
  }
}
