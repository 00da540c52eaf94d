package io.jkubelet.agent.status;

import io.jkubelet.agent.TestApiServer;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;

/** Cluster mode keeps statuses by the same rules as standalone mode (no API server needed). */
class ApiStatusRulesTest extends StatusManagerContract {
  @Override
  StatusManager create() throws Exception {
    return new ApiStatusManager(
        TestApiServer.unreachableClient(ApiStatusRateBudgetTest.closedPort()),
        Clock.systemUTC(),
        5,
        10,
        p -> false,
        uid -> Optional.empty(),
        Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    manager.stop();
  }
}
