package io.jkubelet.agent.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Cases from upstream's {@code expand_test.go}. */
class ExpansionTest {
  private static final Map<String, String> VARS =
      Map.of("VAR_A", "A", "VAR_B", "B", "VAR_C", "C", "VAR_REF", "$(VAR_A)", "VAR_EMPTY", "");

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("whole string", "$(VAR_A)", "A"),
        Arguments.of("repeat", "$(VAR_A)-$(VAR_A)", "A-A"),
        Arguments.of("beginning", "$(VAR_A)-1", "A-1"),
        Arguments.of("middle", "___$(VAR_B)___", "___B___"),
        Arguments.of("end", "___$(VAR_C)", "___C"),
        Arguments.of("compound", "$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"),
        Arguments.of("escaped reference", "$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"),
        Arguments.of("not recursive", "$(VAR_REF)", "$(VAR_A)"),
        Arguments.of("empty value", "x$(VAR_EMPTY)x", "xx"),
        Arguments.of("unknown stays", "$(VAR_DNE)", "$(VAR_DNE)"),
        Arguments.of("backslash not an escape", "foo\\$(VAR_C)bar", "foo\\Cbar"),
        Arguments.of("lone dollar at the end", "foo$", "foo$"),
        Arguments.of("dollar and a letter", "$VAR_A", "$VAR_A"),
        Arguments.of("unclosed", "$(VAR_A", "$(VAR_A"),
        Arguments.of("unclosed then closed", "$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"),
        Arguments.of("double escape", "$$$$(VAR_A)", "$$(VAR_A)"),
        Arguments.of("escape then reference", "$$$(VAR_A)", "$A"),
        Arguments.of("empty name", "$()", "$()"),
        Arguments.of("no dollar", "plain", "plain"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void expandsAsUpstream(String name, String input, String expected) {
    assertThat(Expansion.expand(input, Expansion.mappingFor(VARS))).isEqualTo(expected);
  }
}
