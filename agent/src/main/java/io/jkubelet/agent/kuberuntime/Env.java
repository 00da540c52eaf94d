package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves a container's environment: literal values with {@code $(VAR)} expansion against the
 * variables defined before them, and the downward API {@code fieldRef}s. Sources jkubelet cannot
 * read (ConfigMaps and Secrets without an API server) give {@code CreateContainerConfigError}.
 */
final class Env {
  private static final Pattern MAP_KEY =
      Pattern.compile("metadata\\.(labels|annotations)\\['([^']+)'\\]");

  private Env() {}

  static List<EnvVar> resolve(Pod pod, Container c, Supplier<String> podIp, String hostIp)
      throws StartException {
    Map<String, String> env = new LinkedHashMap<>();
    if (c.getEnv() != null) {
      for (EnvVar e : c.getEnv()) {
        String value;
        if (e.getValueFrom() == null) {
          value = Configs.expand(e.getValue() == null ? "" : e.getValue(), env);
        } else if (e.getValueFrom().getFieldRef() != null) {
          value = field(pod, e.getValueFrom().getFieldRef(), podIp, hostIp, e.getName());
        } else {
          throw new StartException(
              WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
              "env \""
                  + e.getName()
                  + "\": only value and fieldRef are supported without an API server");
        }
        env.put(e.getName(), value);
      }
    }
    List<EnvVar> out = new ArrayList<>();
    env.forEach((k, v) -> out.add(new EnvVar(k, v, null)));
    return out;
  }

  private static String field(
      Pod pod, ObjectFieldSelector ref, Supplier<String> podIp, String hostIp, String name)
      throws StartException {
    String path = ref.getFieldPath();
    Matcher m = MAP_KEY.matcher(path == null ? "" : path);
    if (m.matches()) {
      Map<String, String> map =
          "labels".equals(m.group(1))
              ? pod.getMetadata().getLabels()
              : pod.getMetadata().getAnnotations();
      return map == null ? "" : map.getOrDefault(m.group(2), "");
    }
    return switch (path == null ? "" : path) {
      case "metadata.name" -> pod.getMetadata().getName();
      case "metadata.namespace" -> pod.getMetadata().getNamespace();
      case "metadata.uid" -> pod.getMetadata().getUid();
      case "spec.nodeName" -> nullToEmpty(pod.getSpec().getNodeName());
      case "spec.serviceAccountName" -> nullToEmpty(pod.getSpec().getServiceAccountName());
      case "status.podIP", "status.podIPs" -> podIp.get();
      case "status.hostIP" -> hostIp;
      default ->
          throw new StartException(
              WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
              "env \"" + name + "\": unsupported fieldRef \"" + path + "\"");
    };
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
