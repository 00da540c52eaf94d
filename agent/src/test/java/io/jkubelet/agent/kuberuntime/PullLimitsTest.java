package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.runtime.PullObserver;
import io.jkubelet.agent.runtime.RegistryAuth;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PullLimitsTest {
  private final FakeClock clock = new FakeClock();
  private final FakeRuntime fake = new FakeRuntime(clock);

  @Test
  void pullsBeyondTheQpsAndBurstFailWithUpstreamsMessageUntilTheBucketRefills() {
    fake.addRegistryImage("busybox", RegistryAuth.NONE);
    Runtime limited = PullLimits.of(fake, clock, 1, 2, false);
    limited.pullImage("busybox", RegistryAuth.NONE, Duration.ofMinutes(1), PullObserver.NONE);
    limited.pullImage("busybox", RegistryAuth.NONE, Duration.ofMinutes(1), PullObserver.NONE);
    assertThatThrownBy(
            () ->
                limited.pullImage(
                    "busybox", RegistryAuth.NONE, Duration.ofMinutes(1), PullObserver.NONE))
        .isInstanceOf(RuntimeError.class)
        .hasMessage("pull QPS exceeded");
    clock.step(Duration.ofSeconds(1));
    limited.pullImage("busybox", RegistryAuth.NONE, Duration.ofMinutes(1), PullObserver.NONE);
    assertThat(fake.calls()).filteredOn(c -> c.startsWith("pullImage")).hasSize(3);
  }

  @Test
  void withoutLimitsTheRuntimeIsItself() {
    assertThat(PullLimits.of(fake, clock, 0, 10, false)).isSameAs(fake);
    assertThat(PullLimits.of(fake, clock, 0, 10, true)).isNotSameAs(fake);
  }
}
