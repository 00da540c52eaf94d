package io.jkubelet.agent.cm;

import static io.jkubelet.agent.cm.Pods.container;
import static io.jkubelet.agent.cm.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FakeContainerManagerTest {
  @Test
  void recordsCallsAndGivesTheSetResults() {
    FakeContainerManager cm = new FakeContainerManager();
    Pod p = pod("u1", container("", "", "", ""));
    cm.start();
    cm.updateQos(List.of(p));
    cm.ensurePod(p);
    cm.cleanupResult(List.of(new Removal.Busy("/kubepods/podu2", List.of(7))));
    assertThat(cm.cleanup(Set.of("u1")))
        .containsExactly(new Removal.Busy("/kubepods/podu2", List.of(7)));
    cm.ensureError(new CgroupException("/kubepods/podu1", "no space"));
    assertThatThrownBy(() -> cm.ensurePod(p)).hasMessage("cgroup /kubepods/podu1: no space");

    assertThat(cm.cgroupParent(p)).isEqualTo("/kubepods/podu1");
    assertThat(cm.calls())
        .containsExactly("start", "updateQos 1", "ensurePod u1", "cleanup [u1]", "ensurePod u1");
    assertThat(cm.healthy().ok()).isTrue();
  }
}
