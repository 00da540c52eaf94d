package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import org.junit.jupiter.api.Test;

class ApiSerializationTest {
  private static Object watched(String apiVersion, String kind) {
    String json =
        """
        {"type": "MODIFIED", "object": {"apiVersion": "%s", "kind": "%s",
         "metadata": {"name": "x", "namespace": "ns", "resourceVersion": "7"}}}
        """
            .formatted(apiVersion, kind);
    return ApiSerialization.SHARED.unmarshal(json, WatchEvent.class).getObject();
  }

  @Test
  void everyWatchedKindReadsAsItsClassInAWatchEvent() {
    for (Class<? extends KubernetesResource> kind : ApiSerialization.WATCHED_KINDS) {
      assertThat(watched(HasMetadata.getApiVersion(kind), HasMetadata.getKind(kind)))
          .as(kind.getName())
          .isExactlyInstanceOf(kind);
    }
  }

  @Test
  void aPodInAWatchEventKeepsItsFields() {
    Pod pod = (Pod) watched("v1", "Pod");
    assertThat(pod.getMetadata().getName()).isEqualTo("x");
    assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("7");
  }

  /** The kinds fabric8 ships but jkubelet never watches are not looked for (nor loaded). */
  @Test
  void anUnwatchedKindReadsAsAGenericResource() {
    assertThat(watched("apps/v1", "Deployment"))
        .isExactlyInstanceOf(GenericKubernetesResource.class);
    assertThat(ApiSerialization.SHARED.getRegisteredKubernetesResource("apps/v1", "Deployment"))
        .isNull();
  }

  /** Every type of the warm-up reads; an entry that cannot (and so warms nothing) fails here. */
  @Test
  void theWarmUpReadsEveryTypeOfTheApisResponses() {
    assertThat(ApiSerialization.warmUp()).isEqualTo(ApiSerialization.READ_TYPES.size());
    assertThat(ApiSerialization.READ_TYPES).contains(Pod.class, WatchEvent.class);
  }
}
