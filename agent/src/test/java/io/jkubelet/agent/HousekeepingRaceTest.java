package io.jkubelet.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.jkubelet.agent.cm.FakeContainerManager;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.KubeletConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Housekeeping runs beside the sync loop: a pod added and started while a round is under way is not
 * an orphan. 100 hollow nodes' churn found 13 of 1,000 new pods killed as "not desired" a second
 * after they started, and left Pending in the API.
 */
@Timeout(60)
class HousekeepingRaceTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock();
  private final GatedRuntime runtime = new GatedRuntime(clock);
  private final FakeContainerManager cgroups = new FakeContainerManager();
  private Agent agent;

  /**
   * The name of the thread that started this one: runtime calls run on threads of their own, each
   * started by its caller's, so housekeeping's listing is the one on a thread that {@code
   * housekeeping} started. Set on the test's thread, every thread the agent starts inherits it.
   */
  static final InheritableThreadLocal<String> STARTER =
      new InheritableThreadLocal<>() {
        @Override
        protected String childValue(String parent) {
          return Thread.currentThread().getName();
        }
      };

  /** Holds housekeeping's listing of the runtime while shut. */
  static final class GatedRuntime extends FakeRuntime {
    private volatile CountDownLatch gate;
    private final AtomicInteger held = new AtomicInteger();

    GatedRuntime(FakeClock clock) {
      super(clock, "jkubelet/busybox:1.35", "jkubelet/pause:3.2");
    }

    void shut() {
      gate = new CountDownLatch(1);
    }

    void open() {
      gate.countDown();
    }

    @Override
    public List<ContainerSummary> listContainers() {
      CountDownLatch g = gate;
      if (g != null && "housekeeping".equals(STARTER.get())) {
        held.incrementAndGet();
        try {
          g.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          held.decrementAndGet();
        }
      }
      return super.listContainers();
    }
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.stop();
    }
  }

  @Test
  void aPodStartedDuringARoundOfHousekeepingKeepsRunning() throws Exception {
    Path manifests = Files.createDirectories(tmp.resolve("manifests"));
    KubeletConfiguration config = TestAgents.staticPods(manifests);
    agent =
        Agent.create(
            TestAgents.standalone("node1", tmp.resolve("root"), "10.1.1.1", config),
            TestAgents.dependencies(clock, runtime, cgroups, new TestAgents.Recorded()));
    STARTER.set("test");
    agent.start();

    // A round of housekeeping under way, held at its listing of the runtime.
    runtime.shut();
    await().atMost(Duration.ofSeconds(30)).until(() -> runtime.held.get() == 1);
    // Meanwhile a pod is added, started and seen Running.
    Files.writeString(manifests.resolve("web.yaml"), TestAgents.WEB_POD);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                agent.podsWithStatus().stream()
                    .anyMatch(p -> "Running".equals(p.getStatus().getPhase())));
    long stopsBefore = stops();
    runtime.open();

    // Housekeeping finishes its round and runs two more; the pod was never stopped.
    long rounds = housekeepingRounds();
    await().atMost(Duration.ofSeconds(30)).until(() -> housekeepingRounds() >= rounds + 2);
    assertThat(runtime.running()).hasSize(2);
    assertThat(stops()).isEqualTo(stopsBefore);
  }

  private long stops() {
    return runtime.calls().stream().filter(c -> c.startsWith("stopContainer")).count();
  }

  /** Rounds of housekeeping finished so far: each ends with the pods' cgroups cleaned up. */
  private long housekeepingRounds() {
    return cgroups.calls().stream().filter(c -> c.startsWith("cleanup")).count();
  }
}
