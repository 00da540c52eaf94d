package io.jkubelet.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.cm.CgroupException;
import io.jkubelet.agent.cm.FakeContainerManager;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent with a container manager: started before any pod syncs and stopped last, a failing
 * start refuses the agent's, and housekeeping removes the cgroups of gone pods and keeps those of
 * pods still there.
 */
@Timeout(60)
class AgentCgroupsTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime runtime =
      new FakeRuntime(clock, "jkubelet/busybox:1.35", "jkubelet/pause:3.2");
  private final FakeContainerManager cgroups = new FakeContainerManager();
  private Agent agent;
  private Path manifests;

  private Agent agent() throws Exception {
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    KubeletConfiguration config = TestAgents.staticPods(manifests);
    agent =
        Agent.create(
            TestAgents.standalone("node1", tmp.resolve("root"), "10.1.1.1", config),
            TestAgents.dependencies(clock, runtime, cgroups, new TestAgents.Recorded()));
    return agent;
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.stop();
    }
  }

  private String uid() {
    return agent.podsWithStatus().get(0).getMetadata().getUid();
  }

  private List<String> cleanups() {
    return cgroups.calls().stream().filter(c -> c.startsWith("cleanup")).toList();
  }

  @Test
  void theManagerStartsFirstAndStopsLast() throws Exception {
    agent().start();
    assertThat(cgroups.calls()).first().isEqualTo("start");
    assertThat(cgroups.healthy().ok()).isTrue();

    agent.stop();
    assertThat(cgroups.calls()).last().isEqualTo("stop");
  }

  @Test
  void aManagerThatCannotStartRefusesTheAgentsStart() throws Exception {
    cgroups.startError(new CgroupException("/", "cgroupRoot does not exist"));
    Agent a = agent();

    assertThatThrownBy(a::start).hasMessage("cgroup /: cgroupRoot does not exist");
    a.stop(); // nothing was started: nothing to stop
    assertThat(cgroups.calls()).containsExactly("start");
    assertThat(runtime.calls()).isEmpty();
  }

  @Test
  void housekeepingKeepsARunningPodsCgroupAndRemovesItOnceThePodIsGone() throws Exception {
    agent().start();
    Files.writeString(manifests.resolve("web.yaml"), TestAgents.WEB_POD);
    await().until(() -> runtime.running().size() == 2);
    String uid = uid();
    assertThat(cgroups.calls()).contains("ensurePod " + uid);
    await().until(() -> cleanups().stream().anyMatch(c -> c.contains(uid)));
    assertThat(cgroups.calls()).contains("updateQos 1");

    Files.delete(manifests.resolve("web.yaml"));
    await().until(() -> runtime.all().isEmpty());
    int before = cleanups().size();
    await().until(() -> cleanups().size() > before);
    assertThat(cleanups().get(cleanups().size() - 1)).doesNotContain(uid);
    await().until(() -> cgroups.calls().get(cgroups.calls().size() - 1).equals("updateQos 0"));
    assertThat(runtime.all()).noneMatch(f -> f.state == ContainerState.RUNNING);
  }
}
