package io.jkubelet.agent.prober;

import io.jkubelet.config.Records;

/** What the prober tells the sync loop. */
public sealed interface ProberEvent permits ProberEvent.ResultChange {

  /** The published result of a probe of a container changed. */
  record ResultChange(
      String podUid, String containerName, String containerId, ProbeType type, ProbeResult result)
      implements ProberEvent {
    public ResultChange {
      Records.requireNonNull(ResultChange.class, podUid, containerName, containerId, type, result);
    }
  }
}
