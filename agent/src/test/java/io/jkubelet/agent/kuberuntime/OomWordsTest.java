package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OomWordsTest {
  @Test
  void bytesAreWrittenAsKubernetesQuantities() {
    assertThat(OomWords.bytes(16L << 20)).isEqualTo("16Mi");
    assertThat(OomWords.bytes(16128L << 10)).isEqualTo("15.8Mi");
    assertThat(OomWords.bytes(3L << 29)).isEqualTo("1.5Gi");
    assertThat(OomWords.bytes(900L << 10)).isEqualTo("900Ki");
    assertThat(OomWords.bytes(12)).isEqualTo("12");
  }
}
