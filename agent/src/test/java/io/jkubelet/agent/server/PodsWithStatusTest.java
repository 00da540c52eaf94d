package io.jkubelet.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodsWithStatusTest {
  @Test
  void aPodWaitingOnAPullCarriesItsProgressOnTheCopyOnly() {
    Pod pulling = TestPods.simple("u1", "pulling", "app");
    Pod running = TestPods.simple("u2", "running", "app");
    String progress = "[{\"image\":\"big:1\",\"bytes\":25000000}]";
    List<Pod> pods =
        new PodsWithStatus(
                () -> List.of(pulling, running),
                uid -> Optional.empty(),
                uid -> uid.equals("u1") ? Map.of(PodsWithStatus.IMAGE_PULLS, progress) : Map.of())
            .get();

    assertThat(pods.get(0).getMetadata().getAnnotations())
        .containsEntry(PodsWithStatus.IMAGE_PULLS, progress);
    assertThat(pods.get(1).getMetadata()).isSameAs(running.getMetadata());
    assertThat(pulling.getMetadata().getAnnotations())
        .as("the desired pod is left as it is")
        .doesNotContainKey(PodsWithStatus.IMAGE_PULLS);
  }
}
