package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.ConfigMapVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.nio.file.Path;

/** {@code configMap} volumes, on disk, as upstream's {@code kubernetes.io/configmap} plugin. */
final class ConfigMapPlugin implements VolumePlugin {
  private final Sources sources;
  private final Projector projector;

  ConfigMapPlugin(Sources sources, Projector projector) {
    this.sources = sources;
    this.projector = projector;
  }

  @Override
  public String dirName() {
    return "kubernetes.io~configmap";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getConfigMap() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    ConfigMapVolumeSource s = v.getConfigMap();
    boolean optional = Boolean.TRUE.equals(s.getOptional());
    return projector.project(
        pod,
        v,
        dir,
        false,
        () -> {
          try {
            return sources.configMap(
                pod, s.getName(), s.getItems(), Sources.mode(s.getDefaultMode()), optional);
          } catch (Sources.SourceError e) {
            throw new MountFailure(v.getName(), e.getMessage(), e);
          }
        });
  }
}
