package io.jkubelet.agent.volume;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.jkubelet.agent.env.EnvException;
import io.jkubelet.agent.env.NodeAllocatable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The files of a downward API volume, as upstream's {@code downwardapi.CollectData}: pod metadata
 * through {@code fieldRef}, container resources through {@code resourceFieldRef} (an unset limit
 * falls back to the node's allocatable). Pure functions.
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
          value = fieldPath(pod, item.getFieldRef().getFieldPath());
        } else if (item.getResourceFieldRef() != null) {
          value = resource(pod, item.getResourceFieldRef(), node);
        }
      } catch (FieldError e) {
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

  /** upstream's {@code fieldpath.ExtractFieldPathAsString}, shared with the environment. */
  static String fieldPath(Pod pod, String path) throws FieldError {
    try {
      return io.jkubelet.agent.env.DownwardApi.fieldPath(pod, path);
    } catch (EnvException e) {
      throw new FieldError(e.getMessage());
    }
  }

  /** upstream's {@code ExtractResourceValueByContainerNameAndNodeAllocatable}. */
  static String resource(Pod pod, ResourceFieldSelector sel, NodeAllocatable node)
      throws FieldError {
    Container c = container(pod, sel.getContainerName());
    String res = sel.getResource();
    Quantity divisor = sel.getDivisor();
    BigDecimal div =
        divisor == null || divisor.getNumericalAmount().signum() == 0
            ? BigDecimal.ONE
            : divisor.getNumericalAmount();
    boolean limit = res.startsWith("limits.");
    String name = res.substring(res.indexOf('.') + 1);
    if (!res.startsWith("limits.") && !res.startsWith("requests.")
        || !List.of("cpu", "memory", "ephemeral-storage").contains(name)) {
      throw new FieldError("unsupported container resource : " + res);
    }
    BigDecimal amount = amount(c, limit, name, node);
    if (name.equals("cpu")) {
      // ceil(milli / divisorMilli), each side rounded up to whole millicores as Quantity does
      BigDecimal milli = amount.movePointRight(3).setScale(0, RoundingMode.CEILING);
      BigDecimal divMilli = div.movePointRight(3).setScale(0, RoundingMode.CEILING);
      return milli.divide(divMilli, 0, RoundingMode.CEILING).toPlainString();
    }
    BigDecimal value = amount.setScale(0, RoundingMode.CEILING);
    return value
        .divide(div.setScale(0, RoundingMode.CEILING), 0, RoundingMode.CEILING)
        .toPlainString();
  }

  private static BigDecimal amount(Container c, boolean limit, String name, NodeAllocatable node) {
    var r = c.getResources();
    Map<String, Quantity> map = r == null ? null : limit ? r.getLimits() : r.getRequests();
    Quantity q = map == null ? null : map.get(name);
    if (q != null) {
      return q.getNumericalAmount();
    }
    if (!limit) {
      return BigDecimal.ZERO;
    }
    return switch (name) {
      case "cpu" -> BigDecimal.valueOf(node.milliCpu()).movePointLeft(3);
      case "memory" -> BigDecimal.valueOf(node.memoryBytes());
      default -> BigDecimal.valueOf(node.ephemeralStorageBytes());
    };
  }

  private static Container container(Pod pod, String name) throws FieldError {
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    for (Container c : all) {
      if (c.getName().equals(name)) {
        return c;
      }
    }
    throw new FieldError("container " + name + " not found");
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
