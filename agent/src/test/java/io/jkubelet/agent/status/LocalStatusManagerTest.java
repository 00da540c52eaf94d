package io.jkubelet.agent.status;

/** Standalone mode keeps statuses by the same rules as cluster mode. */
class LocalStatusManagerTest extends StatusManagerContract {
  @Override
  StatusManager create() {
    return new LocalStatusManager();
  }
}
