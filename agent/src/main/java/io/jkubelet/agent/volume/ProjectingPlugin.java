package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ProjectedVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.jkubelet.agent.util.Errors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The volume kinds whose files come from API objects or the pod itself, written by the {@link
 * Projector}, as upstream's {@code kubernetes.io/secret}, {@code configmap}, {@code downward-api}
 * and {@code projected} plugins: one plugin a kind, told apart by its directory, its source and
 * whether it is on a tmpfs (all but configMap). A {@code projected} volume puts secret, configMap,
 * downward API and service-account token sources into one directory, the errors of all its sources
 * aggregated into one message, as upstream.
 */
final class ProjectingPlugin implements VolumePlugin {

  /** A kind's files for one volume. */
  @FunctionalInterface
  interface Files {
    Map<String, FileProjection> of(Pod pod, Volume v) throws Sources.SourceError, MountFailure;
  }

  private final String dirName;
  private final Predicate<Volume> kind;
  private final boolean tmpfs;
  private final Projector projector;
  private final Files files;

  private ProjectingPlugin(
      String dirName, Predicate<Volume> kind, boolean tmpfs, Projector projector, Files files) {
    this.dirName = dirName;
    this.kind = kind;
    this.tmpfs = tmpfs;
    this.projector = projector;
    this.files = files;
  }

  /** The plugins of secret, configMap, downwardAPI and projected volumes, in that order. */
  static List<VolumePlugin> all(Sources sources, Projector projector) {
    return List.of(
        new ProjectingPlugin(
            "kubernetes.io~secret",
            v -> v.getSecret() != null,
            true,
            projector,
            (pod, v) -> {
              var s = v.getSecret();
              return sources.secret(
                  pod,
                  new Sources.Keys(
                      s.getSecretName(),
                      s.getItems(),
                      Sources.mode(s.getDefaultMode()),
                      Boolean.TRUE.equals(s.getOptional())));
            }),
        new ProjectingPlugin(
            "kubernetes.io~configmap",
            v -> v.getConfigMap() != null,
            false,
            projector,
            (pod, v) -> {
              var c = v.getConfigMap();
              return sources.configMap(
                  pod,
                  new Sources.Keys(
                      c.getName(),
                      c.getItems(),
                      Sources.mode(c.getDefaultMode()),
                      Boolean.TRUE.equals(c.getOptional())));
            }),
        new ProjectingPlugin(
            "kubernetes.io~downward-api",
            v -> v.getDownwardAPI() != null,
            true,
            projector,
            (pod, v) ->
                sources.downward(
                    pod,
                    v.getDownwardAPI().getItems(),
                    Sources.mode(v.getDownwardAPI().getDefaultMode()))),
        new ProjectingPlugin(
            "kubernetes.io~projected",
            v -> v.getProjected() != null,
            true,
            projector,
            (pod, v) -> projected(sources, v.getName(), v.getProjected(), pod)));
  }

  @Override
  public String dirName() {
    return dirName;
  }

  @Override
  public boolean canSupport(Volume v) {
    return kind.test(v);
  }

  @Override
  public Path setUp(Pod pod, Volume v, Path dir) throws MountFailure {
    return projector.project(
        pod,
        v,
        dir,
        tmpfs,
        () -> {
          try {
            return files.of(pod, v);
          } catch (Sources.SourceError e) {
            throw Errors.withCause(new MountFailure(v.getName(), e.getMessage()), e);
          }
        });
  }

  /** A projected volume's files: every source's, or one failure naming them all. */
  private static Map<String, FileProjection> projected(
      Sources sources, String volume, ProjectedVolumeSource s, Pod pod) throws MountFailure {
    int mode = Sources.mode(s.getDefaultMode());
    Map<String, FileProjection> payload = new HashMap<>();
    List<String> errors = new ArrayList<>();
    for (VolumeProjection p :
        s.getSources() == null ? List.<VolumeProjection>of() : s.getSources()) {
      try {
        payload.putAll(source(sources, pod, p, mode));
      } catch (Sources.SourceError e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new MountFailure(volume, DownwardApi.aggregate(errors));
    }
    return payload;
  }

  private static Map<String, FileProjection> source(
      Sources sources, Pod pod, VolumeProjection p, int mode) throws Sources.SourceError {
    if (p.getSecret() != null) {
      var s = p.getSecret();
      return sources.secret(
          pod,
          new Sources.Keys(s.getName(), s.getItems(), mode, Boolean.TRUE.equals(s.getOptional())));
    }
    if (p.getConfigMap() != null) {
      var c = p.getConfigMap();
      return sources.configMap(
          pod,
          new Sources.Keys(c.getName(), c.getItems(), mode, Boolean.TRUE.equals(c.getOptional())));
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
