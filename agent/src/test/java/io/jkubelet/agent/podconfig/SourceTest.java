package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceTest {
  @Test
  void eachSourceRoundTripsThroughItsAnnotationValue() {
    assertThat(Source.FILE.annotation()).isEqualTo("file");
    assertThat(Source.HTTP.annotation()).isEqualTo("http");
    assertThat(Source.API.annotation()).isEqualTo("api");
    for (Source s : Source.values()) {
      assertThat(Source.fromAnnotation(s.annotation())).contains(s);
    }
    assertThat(Source.fromAnnotation("FILE")).isEmpty();
    assertThat(Source.fromAnnotation("")).isEmpty();
    assertThat(Source.fromAnnotation(null)).isEmpty();
  }

  private static Pod annotated(Map<String, String> annotations) {
    return TestPods.builder("default", "p", "uid")
        .editMetadata()
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  @Test
  void aPodIsStaticUnlessItHasNoSourceOrTheApiSourceAsUpstream() {
    assertThat(Annotations.isStatic(annotated(Map.of(Annotations.CONFIG_SOURCE, "file")))).isTrue();
    assertThat(Annotations.isStatic(annotated(Map.of(Annotations.CONFIG_SOURCE, "http")))).isTrue();
    assertThat(Annotations.isStatic(annotated(Map.of(Annotations.CONFIG_SOURCE, "other"))))
        .isTrue();
    assertThat(Annotations.isStatic(annotated(Map.of(Annotations.CONFIG_SOURCE, "api")))).isFalse();
    assertThat(Annotations.isStatic(annotated(null))).isFalse();
    assertThat(Annotations.source(annotated(Map.of(Annotations.CONFIG_SOURCE, "http"))))
        .contains(Source.HTTP);
    assertThat(Annotations.source(annotated(Map.of(Annotations.CONFIG_SOURCE, "other")))).isEmpty();
  }
}
