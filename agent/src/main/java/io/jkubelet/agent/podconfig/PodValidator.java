package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.jkubelet.agent.util.LabelSyntax;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates a pod the way the API server would, for the fields jkubelet acts on. Errors read like
 * the API server's: {@code spec.containers[0].image: Required value}.
 */
public final class PodValidator {
  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Set<String> RESTART_POLICIES = Set.of("Always", "OnFailure", "Never");
  private static final Set<String> PULL_POLICIES = Set.of("Always", "IfNotPresent", "Never");
  private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP", "SCTP");

  private PodValidator() {}

  /** All problems found, or an empty list for a valid pod. */
  public static List<String> validate(Pod pod) {
    List<String> errs = new ArrayList<>();
    if (pod.getMetadata() == null) {
      errs.add("metadata: Required value");
      return errs;
    }
    validateMetadata(pod.getMetadata().getName(), pod.getMetadata().getNamespace(), errs);
    validateLabels(pod.getMetadata().getLabels(), errs);
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      errs.add("spec: Required value");
      return errs;
    }
    if (spec.getContainers() == null || spec.getContainers().isEmpty()) {
      errs.add("spec.containers: Required value");
    }
    if (spec.getRestartPolicy() != null && !RESTART_POLICIES.contains(spec.getRestartPolicy())) {
      errs.add(
          "spec.restartPolicy: Unsupported value: \""
              + spec.getRestartPolicy()
              + "\": supported values: \"Always\", \"OnFailure\", \"Never\"");
    }
    if (spec.getTerminationGracePeriodSeconds() != null
        && spec.getTerminationGracePeriodSeconds() < 0) {
      errs.add("spec.terminationGracePeriodSeconds: Invalid value: must be >= 0");
    }
    Set<String> volumes = validateVolumes(spec.getVolumes(), errs);
    Set<String> names = new HashSet<>();
    validateContainers(spec.getInitContainers(), "spec.initContainers", volumes, names, errs);
    validateContainers(spec.getContainers(), "spec.containers", volumes, names, errs);
    return errs;
  }

  private static void validateMetadata(String name, String ns, List<String> errs) {
    if (name == null || name.isEmpty()) {
      errs.add("metadata.name: Required value");
    } else if (name.length() > 253 || !DNS1123_SUBDOMAIN.matcher(name).matches()) {
      errs.add(
          "metadata.name: Invalid value: \""
              + name
              + "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
              + " characters, '-' or '.', and must start and end with an alphanumeric character");
    }
    if (ns != null && !ns.isEmpty() && (ns.length() > 63 || !DNS1123_LABEL.matcher(ns).matches())) {
      errs.add("metadata.namespace: Invalid value: \"" + ns + "\": must be a DNS-1123 label");
    }
  }

  /**
   * Each label's key and value, as the API server's {@code ValidateLabels}: upstream's file and
   * HTTP sources refuse a pod with a bad label, and so would the API server its mirror pod.
   */
  private static void validateLabels(Map<String, String> labels, List<String> errs) {
    if (labels == null) {
      return;
    }
    labels.forEach(
        (k, v) -> {
          LabelSyntax.checkKey(k)
              .ifPresent(why -> errs.add("metadata.labels: Invalid value: \"" + k + "\": " + why));
          LabelSyntax.checkValue(v)
              .ifPresent(why -> errs.add("metadata.labels: Invalid value: \"" + v + "\": " + why));
        });
  }

  /** Validates the volumes and returns their names. */
  private static Set<String> validateVolumes(List<Volume> vols, List<String> errs) {
    Set<String> volumes = new HashSet<>();
    if (vols == null) {
      return volumes;
    }
    for (int i = 0; i < vols.size(); i++) {
      Volume v = vols.get(i);
      String path = "spec.volumes[" + i + "]";
      if (v.getName() == null || !DNS1123_LABEL.matcher(v.getName()).matches()) {
        errs.add(path + ".name: Invalid value: \"" + v.getName() + "\": must be a DNS-1123 label");
      } else if (!volumes.add(v.getName())) {
        errs.add(path + ".name: Duplicate value: \"" + v.getName() + "\"");
      }
      if (v.getHostPath() != null
          && (v.getHostPath().getPath() == null || v.getHostPath().getPath().isEmpty())) {
        errs.add(path + ".hostPath.path: Required value");
      }
    }
    return volumes;
  }

  private static void validateContainers(
      List<Container> containers,
      String field,
      Set<String> volumes,
      Set<String> names,
      List<String> errs) {
    if (containers == null) {
      return;
    }
    for (int i = 0; i < containers.size(); i++) {
      Container c = containers.get(i);
      String path = field + "[" + i + "]";
      if (c.getName() == null || c.getName().isEmpty()) {
        errs.add(path + ".name: Required value");
      } else if (c.getName().length() > 63 || !DNS1123_LABEL.matcher(c.getName()).matches()) {
        errs.add(path + ".name: Invalid value: \"" + c.getName() + "\": must be a DNS-1123 label");
      } else if (!names.add(c.getName())) {
        errs.add(path + ".name: Duplicate value: \"" + c.getName() + "\"");
      }
      if (c.getImage() == null || c.getImage().isBlank()) {
        errs.add(path + ".image: Required value");
      }
      if (c.getImagePullPolicy() != null && !PULL_POLICIES.contains(c.getImagePullPolicy())) {
        errs.add(
            path
                + ".imagePullPolicy: Unsupported value: \""
                + c.getImagePullPolicy()
                + "\": supported values: \"Always\", \"IfNotPresent\", \"Never\"");
      }
      validatePorts(c.getPorts(), path, errs);
      validateMounts(c.getVolumeMounts(), path, volumes, errs);
      if (c.getResources() != null) {
        quantities(c.getResources().getLimits(), path + ".resources.limits", errs);
        quantities(c.getResources().getRequests(), path + ".resources.requests", errs);
      }
    }
  }

  private static void validatePorts(List<ContainerPort> ports, String path, List<String> errs) {
    if (ports == null) {
      return;
    }
    for (int p = 0; p < ports.size(); p++) {
      ContainerPort port = ports.get(p);
      String pp = path + ".ports[" + p + "]";
      if (port.getContainerPort() == null
          || port.getContainerPort() < 1
          || port.getContainerPort() > 65535) {
        errs.add(pp + ".containerPort: Invalid value: must be between 1 and 65535, inclusive");
      }
      if (port.getHostPort() != null && (port.getHostPort() < 0 || port.getHostPort() > 65535)) {
        errs.add(pp + ".hostPort: Invalid value: must be between 0 and 65535, inclusive");
      }
      if (port.getProtocol() != null && !PROTOCOLS.contains(port.getProtocol())) {
        errs.add(pp + ".protocol: Unsupported value: \"" + port.getProtocol() + "\"");
      }
    }
  }

  private static void validateMounts(
      List<VolumeMount> mounts, String path, Set<String> volumes, List<String> errs) {
    if (mounts == null) {
      return;
    }
    for (int m = 0; m < mounts.size(); m++) {
      VolumeMount vm = mounts.get(m);
      String mp = path + ".volumeMounts[" + m + "]";
      if (vm.getName() == null || !volumes.contains(vm.getName())) {
        errs.add(mp + ".name: Not found: \"" + vm.getName() + "\"");
      }
      if (vm.getMountPath() == null || vm.getMountPath().isEmpty()) {
        errs.add(mp + ".mountPath: Required value");
      }
    }
  }

  private static void quantities(Map<String, Quantity> q, String path, List<String> errs) {
    if (q == null) {
      return;
    }
    q.forEach(
        (k, v) -> {
          try {
            if (v == null || v.getNumericalAmount().signum() < 0) {
              errs.add(path + "[" + k + "]: Invalid value: must be greater than or equal to 0");
            }
          } catch (RuntimeException e) {
            errs.add(path + "[" + k + "]: Invalid value: \"" + v + "\": " + e.getMessage());
          }
        });
  }
}
