package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DurationsTest {

  static Stream<Arguments> validDurations() {
    return Stream.of(
        argumentSet("minutes", "1m", Duration.ofMinutes(1)),
        argumentSet("seconds", "20s", Duration.ofSeconds(20)),
        argumentSet("minutes and seconds", "1m30s", Duration.ofSeconds(90)),
        argumentSet("milliseconds", "500ms", Duration.ofMillis(500)),
        argumentSet("other milliseconds", "300ms", Duration.ofMillis(300)),
        argumentSet("hours", "1h", Duration.ofHours(1)),
        argumentSet("fractional seconds", "1.5s", Duration.ofMillis(1500)),
        argumentSet("fractional hours", "1.5h", Duration.ofMinutes(90)),
        argumentSet("zero with unit", "0s", Duration.ZERO),
        argumentSet("bare zero", "0", Duration.ZERO),
        argumentSet(
            "hours minutes seconds", "2h45m10s", Duration.ofSeconds(2 * 3600 + 45 * 60 + 10)),
        argumentSet("Go's long form", "1h0m0s", Duration.ofHours(1)),
        argumentSet("microseconds as us", "10us", Duration.ofNanos(10_000)),
        argumentSet("microseconds as micro sign", "10µs", Duration.ofNanos(10_000)),
        argumentSet("nanoseconds", "7ns", Duration.ofNanos(7)),
        argumentSet("leading dot", ".5s", Duration.ofMillis(500)),
        argumentSet("trailing dot", "2.s", Duration.ofSeconds(2)),
        argumentSet("units in any order", "30s1m", Duration.ofSeconds(90)),
        argumentSet("explicit plus sign", "+5s", Duration.ofSeconds(5)),
        argumentSet("sub-nanosecond fraction truncated", "1.0000000009s", Duration.ofSeconds(1)),
        argumentSet(
            "largest Go duration", "2562047h47m16.854775807s", Duration.ofNanos(Long.MAX_VALUE)));
  }

  @ParameterizedTest
  @MethodSource("validDurations")
  void parsesGoDurations(String text, Duration expected) {
    assertThat(Durations.parse(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @MethodSource("validDurations")
  void formatThenParseGivesTheSameDuration(String text, Duration parsed) {
    assertThat(Durations.parse(Durations.format(parsed))).isEqualTo(parsed);
  }

  static Stream<Arguments> malformedDurations() {
    return Stream.of(
        argumentSet("empty", ""),
        argumentSet("word", "abc"),
        argumentSet("number without unit", "20"),
        argumentSet("unknown unit", "20x"),
        argumentSet("unit without number", "s"),
        argumentSet("dot without digits", ".s"),
        argumentSet("two dots", "1.2.3s"),
        argumentSet("exponent", "1e3s"),
        argumentSet("leading space", " 20s"),
        argumentSet("trailing space", "20s "),
        argumentSet("sign only", "+"),
        argumentSet("upper-case unit", "20S"),
        argumentSet("negative component", "1m-5s"));
  }

  @ParameterizedTest
  @MethodSource("malformedDurations")
  void rejectsMalformedDurationsSayingWhatIsExpected(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "invalid duration \""
                + text
                + "\": expected a number with a unit (ns, us, ms, s, m, h), e.g. \"20s\" or"
                + " \"1m30s\"");
  }

  @Test
  void rejectsNegativeDurations() {
    assertThatThrownBy(() -> Durations.parse("-1s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid duration \"-1s\": must not be negative");
  }

  @Test
  void rejectsDurationsGoCannotRepresent() {
    assertThatThrownBy(() -> Durations.parse("2562047h47m16.854775808s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "invalid duration \"2562047h47m16.854775808s\": must be at most"
                + " 2562047h47m16.854775807s");
    assertThatThrownBy(() -> Durations.parse("99999999999999999999h"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be at most");
  }

  @Test
  void rejectsNull() {
    assertThatThrownBy(() -> Durations.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid duration");
  }

  static Stream<Arguments> formattedDurations() {
    return Stream.of(
        argumentSet("zero", Duration.ZERO, "0s"),
        argumentSet("whole seconds", Duration.ofSeconds(20), "20s"),
        argumentSet("one minute", Duration.ofMinutes(1), "1m0s"),
        argumentSet("minutes and seconds", Duration.ofSeconds(90), "1m30s"),
        argumentSet("one hour", Duration.ofHours(1), "1h0m0s"),
        argumentSet("five minutes", Duration.ofMinutes(5), "5m0s"),
        argumentSet("fractional seconds", Duration.ofMillis(1500), "1.5s"),
        argumentSet("milliseconds", Duration.ofMillis(500), "500ms"),
        argumentSet("fractional milliseconds", Duration.ofNanos(1_500_000), "1.5ms"),
        argumentSet("microseconds", Duration.ofNanos(10_000), "10µs"),
        argumentSet("nanoseconds", Duration.ofNanos(7), "7ns"),
        argumentSet(
            "more than a day", Duration.ofSeconds(26 * 3600 + 3 * 60 + 4, 5), "26h3m4.000000005s"),
        argumentSet("negative", Duration.ofSeconds(-90), "-1m30s"),
        argumentSet("largest", Duration.ofNanos(Long.MAX_VALUE), "2562047h47m16.854775807s"),
        argumentSet("smallest", Duration.ofNanos(Long.MIN_VALUE), "-2562047h47m16.854775808s"));
  }

  @ParameterizedTest
  @MethodSource("formattedDurations")
  void formatsLikeGo(Duration duration, String expected) {
    assertThat(Durations.format(duration)).isEqualTo(expected);
  }

  @Test
  void refusesToFormatDurationsBeyondGosRange() {
    assertThatThrownBy(() -> Durations.format(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }
}
