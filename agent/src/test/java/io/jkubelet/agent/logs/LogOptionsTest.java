package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.runtime.LogRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The /containerLogs query, decoded and validated as upstream's getContainerLogs does. */
class LogOptionsTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);

  private static Map<String, List<String>> q(String... kv) {
    Map<String, List<String>> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], List.of(kv[i + 1]));
    }
    return m;
  }

  @Test
  void everyParameterIsRead() throws Exception {
    LogOptions o =
        LogOptions.parse(
            q(
                "follow",
                "true",
                "previous",
                "1",
                "timestamps",
                "true",
                "tailLines",
                "10",
                "sinceTime",
                "2026-03-01T11:00:00Z",
                "limitBytes",
                "100"));
    assertThat(o)
        .isEqualTo(
            new LogOptions(
                true,
                true,
                true,
                OptionalLong.of(10),
                OptionalLong.empty(),
                Optional.of(Instant.parse("2026-03-01T11:00:00Z")),
                OptionalLong.of(100)));
    assertThat(o.request(CLOCK).follow()).as("a previous instance is never followed").isFalse();
  }

  @Test
  void sinceSecondsCountsBackFromNowAndLegacyTailAllMeansEverything() throws Exception {
    LogRequest r =
        LogOptions.parse(q("sinceSeconds", "60", "tail", "all", "tailLines", "3")).request(CLOCK);
    assertThat(r.since()).contains(Instant.parse("2026-03-01T11:59:00Z"));
    assertThat(r.tailLines()).isEmpty();
    assertThat(LogOptions.parse(q("tail", "7")).tailLines()).hasValue(7);
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("negative tailLines", q("tailLines", "-1"), 422),
        Arguments.of("limitBytes 0", q("limitBytes", "0"), 422),
        Arguments.of("sinceSeconds 0", q("sinceSeconds", "0"), 422),
        Arguments.of(
            "both since", q("sinceSeconds", "5", "sinceTime", "2026-03-01T11:00:00Z"), 422),
        Arguments.of("not a number", q("tailLines", "ten"), 400),
        Arguments.of("not a bool", q("follow", "yes"), 400),
        Arguments.of("not a time", q("sinceTime", "yesterday"), 400));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void badQueriesGetUpstreamsStatusAndMessage(
      String name, Map<String, List<String>> query, int status) {
    assertThatThrownBy(() -> LogOptions.parse(query))
        .isInstanceOfSatisfying(
            LogOptions.Invalid.class,
            e -> {
              assertThat(e.status()).isEqualTo(status);
              assertThat(e.getMessage())
                  .isEqualTo(
                      status == 400
                          ? "{\"message\": \"Unable to decode query.\"}"
                          : "{\"message\": \"Invalid request.\"}");
            });
  }
}
