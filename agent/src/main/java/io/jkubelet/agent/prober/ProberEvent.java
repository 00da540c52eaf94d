package io.jkubelet.agent.prober;

import java.util.Objects;

/** What the prober tells the sync loop. */
public sealed interface ProberEvent permits ProberEvent.ResultChange {

  /** The published result of a probe of a container changed. */
  record ResultChange(
      String podUid, String containerName, String containerId, ProbeType type, ProbeResult result)
      implements ProberEvent {
    public ResultChange {
      Objects.requireNonNull(podUid, "podUid");
      Objects.requireNonNull(containerName, "containerName");
      Objects.requireNonNull(containerId, "containerId");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(result, "result");
    }
  }
}
