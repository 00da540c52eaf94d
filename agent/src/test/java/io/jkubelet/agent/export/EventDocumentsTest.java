package io.jkubelet.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EventDocumentsTest {
  @Test
  void theNameBasedIdIsTheJdksVersion3Uuid() {
    for (String name : new String[] {"", "jkubelet-event:node/default/web-0.18eaa8e77a3c4541"}) {
      byte[] b = name.getBytes(StandardCharsets.UTF_8);
      assertThat(EventDocuments.nameUuid(b)).isEqualTo(UUID.nameUUIDFromBytes(b));
    }
  }

  static Stream<Arguments> days() {
    return Stream.of(
        Arguments.of("the API's UTC form", "2026-11-23T23:59:59Z", LocalDate.of(2026, 11, 23)),
        Arguments.of("micro time", "2026-11-23T00:00:00.123456Z", LocalDate.of(2026, 11, 23)),
        Arguments.of(
            "an offset: the UTC day", "2026-11-23T23:30:00-02:00", LocalDate.of(2026, 11, 24)),
        Arguments.of("missing", null, LocalDate.EPOCH),
        Arguments.of("not a date", "2026-13-45T00:00:00Z", LocalDate.EPOCH),
        Arguments.of("garbage", "yesterday", LocalDate.EPOCH));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("days")
  void theDailyIndexIsTheUtcDayOfTheFirstOccurrence(String name, String time, LocalDate day) {
    assertThat(EventDocuments.dayOf(time)).isEqualTo(day);
  }
}
