package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import java.nio.file.Path;

/** {@code secret} volumes, on a tmpfs, as upstream's {@code kubernetes.io/secret} plugin. */
final class SecretPlugin implements VolumePlugin {
  private final Sources sources;
  private final Projector projector;

  SecretPlugin(Sources sources, Projector projector) {
    this.sources = sources;
    this.projector = projector;
  }

  @Override
  public String dirName() {
    return "kubernetes.io~secret";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getSecret() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    SecretVolumeSource s = v.getSecret();
    boolean optional = Boolean.TRUE.equals(s.getOptional());
    return projector.project(
        pod,
        v,
        dir,
        true,
        () -> {
          try {
            return sources.secret(
                pod, s.getSecretName(), s.getItems(), Sources.mode(s.getDefaultMode()), optional);
          } catch (Sources.SourceError e) {
            throw new MountFailure(v.getName(), e.getMessage(), e);
          }
        });
  }
}
