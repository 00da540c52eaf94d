package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UpstreamFieldsTest {
  @Test
  void everyUpstreamFieldIsDeclaredOrAcceptedWithoutEffect() {
    for (String field : UpstreamFields.ALL) {
      assertThat(
              Settings.named(field).filter(Setting::inFile).isPresent()
                  || Settings.isMapping(field))
          .as(field)
          .isTrue();
    }
  }
}
