package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuantitiesTest {
  /** Moved from the node's and the eviction manager's own copies, which now call this one. */
  @Test
  void bytesAreWrittenAsBinarySi() {
    assertThat(Quantities.binarySi(0)).isEqualTo("0");
    assertThat(Quantities.binarySi(1000)).isEqualTo("1000");
    assertThat(Quantities.binarySi(1536)).isEqualTo("1536");
    assertThat(Quantities.binarySi(2048)).isEqualTo("2Ki");
    assertThat(Quantities.binarySi(16374784L * 1024)).isEqualTo("15991Mi");
    assertThat(Quantities.binarySi(16374785L * 1024)).isEqualTo("16374785Ki");
    assertThat(Quantities.binarySi(100L << 30)).isEqualTo("100Gi");
    assertThat(Quantities.binarySi(312164L * 1024)).isEqualTo("312164Ki");
  }

  @Test
  void binarySiReadsBackAsTheSameBytes() {
    for (long bytes : new long[] {1, 1023, 1024, 3L << 20, (5L << 30) + 4096}) {
      assertThat(Quantities.ceil(Quantities.parse(Quantities.binarySi(bytes)))).isEqualTo(bytes);
    }
  }
}
