package io.jkubelet.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.util.ApiSerialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How statuses compare and what the status patch carries. */
class ApiStatusPatchesTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final Pod pod = TestPods.simple("u1", "p", "a", "b");

  @Test
  void lastProbeTimeAndEmptyFieldsDoNotMakeADifference() {
    PodStatus s = ApiStatusFixtures.running(pod, T0, "10.88.0.4", true, 0);
    PodStatus probed = new PodStatusBuilder(s).build();
    probed.getConditions().get(1).setLastProbeTime("2026-01-01T00:00:09Z");
    probed.setMessage("");
    probed.setNominatedNodeName("elsewhere"); // not the kubelet's

    assertThat(StatusPatches.semantic(probed)).isEqualTo(StatusPatches.semantic(s));
  }

  @Test
  void whatTheApiServerSendsBackComparesEqualToWhatWeSent() {
    PodStatus s = ApiStatusFixtures.running(pod, T0, "10.88.0.4", true, 0);
    // The API server omits empty fields and returns the status we patched as JSON.
    PodStatus roundTrip =
        ApiSerialization.SHARED.unmarshal(
            ApiSerialization.SHARED.asJson(s).replace("\"message\":\"\",", ""), PodStatus.class);

    assertThat(StatusPatches.semantic(roundTrip)).isEqualTo(StatusPatches.semantic(s));
    assertThat(StatusPatches.semantic(ApiStatusFixtures.running(pod, T0, "10.88.0.4", false, 0)))
        .isNotEqualTo(StatusPatches.semantic(s));
  }

  @Test
  void thePatchSetsOwnedFieldsAndClearsUnsetOnesWithoutTheOldStatus() throws Exception {
    PodStatus ours = ApiStatusFixtures.running(pod, T0, "10.88.0.4", true, 0);

    JsonNode patch = new ObjectMapper().readTree(StatusPatches.patch("mirror-uid", ours));

    assertThat(patch.at("/metadata/uid").asText()).isEqualTo("mirror-uid");
    JsonNode status = patch.get("status");
    assertThat(status.get("reason").isNull()).as("an explicit null clears the old reason").isTrue();
    assertThat(status.has("nominatedNodeName")).isFalse();
    assertThat(status.get("podIPs").toString())
        .as("replaced whole, not merged by IP")
        .isEqualTo("[{\"$patch\":\"replace\"},{\"ip\":\"10.88.0.4\"}]");
    assertThat(status.get("initContainerStatuses").toString()).isEqualTo("[]");
    assertThat(status.get("conditions").findValuesAsText("type"))
        .as("ours only: the API server merges them by type with the others'")
        .containsExactly("Initialized", "Ready", "ContainersReady", "PodScheduled");
    assertThat(status.at("/conditions/1/reason").isNull())
        .as("an explicit null clears the reason of the condition's previous version")
        .isTrue();
    assertThat(status.get("containerStatuses").findValuesAsText("name")).containsExactly("a", "b");
  }
}
