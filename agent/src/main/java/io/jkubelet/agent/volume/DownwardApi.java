package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.env.EnvException;
import io.jkubelet.agent.env.NodeAllocatable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The files of a downward API volume, as upstream's {@code downwardapi.CollectData}: pod metadata
 * through {@code fieldRef}, container resources through {@code resourceFieldRef} (an unset limit
 * falls back to the node's allocatable), each value read by {@link
 * io.jkubelet.agent.env.DownwardApi}, as the environment's. Pure functions.
 */
final class DownwardApi {

  private DownwardApi() {}

  /** A field that cannot be read; the message is upstream's. */
  static final class FieldError extends Exception {
    FieldError(String message) {
      super(message);
    }
  }

  /** Every item's file; the errors of all items are aggregated, as upstream. */
  static Map<String, FileProjection> collect(
      List<DownwardAPIVolumeFile> items, Pod pod, int defaultMode, NodeAllocatable node)
      throws FieldError {
    Map<String, FileProjection> data = new HashMap<>();
    List<String> errors = new ArrayList<>();
    for (DownwardAPIVolumeFile item : items == null ? List.<DownwardAPIVolumeFile>of() : items) {
      int mode = item.getMode() != null ? item.getMode() : defaultMode;
      String value = "";
      try {
        if (item.getFieldRef() != null) {
          value =
              io.jkubelet.agent.env.DownwardApi.fieldPath(pod, item.getFieldRef().getFieldPath());
        } else if (item.getResourceFieldRef() != null) {
          value =
              io.jkubelet.agent.env.DownwardApi.volumeResource(
                  pod, item.getResourceFieldRef(), node);
        }
      } catch (EnvException e) {
        errors.add(e.getMessage());
      }
      String path = Path.of(item.getPath()).normalize().toString();
      data.put(path, new FileProjection(value.getBytes(StandardCharsets.UTF_8), mode));
    }
    if (!errors.isEmpty()) {
      throw new FieldError(aggregate(errors));
    }
    return data;
  }

  /** utilerrors.NewAggregate's message: one error as is, several as {@code [a, b]}. */
  static String aggregate(List<String> errors) {
    return errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]";
  }
}
