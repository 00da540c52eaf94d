package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ProjectedVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code projected} volumes, on a tmpfs, as upstream's {@code kubernetes.io/projected}: secret,
 * configMap, downward API and service-account token sources into one directory. The errors of all
 * sources are aggregated into one message, as upstream.
 */
final class ProjectedPlugin implements VolumePlugin {
  private final Sources sources;
  private final Projector projector;

  ProjectedPlugin(Sources sources, Projector projector) {
    this.sources = sources;
    this.projector = projector;
  }

  @Override
  public String dirName() {
    return "kubernetes.io~projected";
  }

  @Override
  public boolean canSupport(Volume v) {
    return v.getProjected() != null;
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    return projector.project(pod, v, dir, true, () -> payload(pod, v));
  }

  private Map<String, FileProjection> payload(Pod pod, Volume v) throws MountFailure {
    ProjectedVolumeSource s = v.getProjected();
    int mode = Sources.mode(s.getDefaultMode());
    Map<String, FileProjection> payload = new HashMap<>();
    List<String> errors = new ArrayList<>();
    for (VolumeProjection p :
        s.getSources() == null ? List.<VolumeProjection>of() : s.getSources()) {
      try {
        payload.putAll(source(pod, p, mode));
      } catch (Sources.SourceError e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new MountFailure(v.getName(), DownwardApi.aggregate(errors));
    }
    return payload;
  }

  private Map<String, FileProjection> source(Pod pod, VolumeProjection p, int mode)
      throws Sources.SourceError {
    if (p.getSecret() != null) {
      var s = p.getSecret();
      return sources.secret(
          pod, s.getName(), s.getItems(), mode, Boolean.TRUE.equals(s.getOptional()));
    }
    if (p.getConfigMap() != null) {
      var c = p.getConfigMap();
      return sources.configMap(
          pod, c.getName(), c.getItems(), mode, Boolean.TRUE.equals(c.getOptional()));
    }
    if (p.getDownwardAPI() != null) {
      return sources.downward(pod, p.getDownwardAPI().getItems(), mode);
    }
    if (p.getServiceAccountToken() != null) {
      return sources.token(pod, p.getServiceAccountToken(), mode);
    }
    return Map.of();
  }
}
