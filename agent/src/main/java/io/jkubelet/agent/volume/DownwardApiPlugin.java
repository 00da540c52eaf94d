package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.nio.file.Path;

/** {@code downwardAPI} volumes, on a tmpfs, as upstream's {@code kubernetes.io/downward-api}. */
final class DownwardApiPlugin implements VolumePlugin {
  private final Sources sources;
  private final Projector projector;

  DownwardApiPlugin(Sources sources, Projector projector) {
    this.sources = sources;
    this.projector = projector;
  }

  @Override
  public String dirName() {
    return "kubernetes.io~downward-api";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getDownwardAPI() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    var s = v.getDownwardAPI();
    return projector.project(
        pod,
        v,
        dir,
        true,
        () -> {
          try {
            return sources.downward(pod, s.getItems(), Sources.mode(s.getDefaultMode()));
          } catch (Sources.SourceError e) {
            throw new MountFailure(v.getName(), e.getMessage(), e);
          }
        });
  }
}
