package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The defaults the API server would apply to a pod ({@code pkg/apis/core/v1/defaults.go}), for pods
 * that do not come through it: static pods from a file or a URL. Mutates the pod it is given.
 */
public final class PodDefaults {
  public static final long DEFAULT_TERMINATION_GRACE_SECONDS = 30;

  private PodDefaults() {}

  public static void apply(Pod pod) {
    if (pod.getSpec() == null) {
      return; // validation reports it
    }
    PodSpec spec = pod.getSpec();
    if (isBlank(spec.getRestartPolicy())) {
      spec.setRestartPolicy("Always");
    }
    if (spec.getTerminationGracePeriodSeconds() == null) {
      spec.setTerminationGracePeriodSeconds(DEFAULT_TERMINATION_GRACE_SECONDS);
    }
    if (isBlank(spec.getDnsPolicy())) {
      spec.setDnsPolicy("ClusterFirst");
    }
    if (isBlank(spec.getSchedulerName())) {
      spec.setSchedulerName("default-scheduler");
    }
    if (spec.getHostNetwork() == null) {
      spec.setHostNetwork(false);
    }
    if (spec.getContainers() == null) {
      spec.setContainers(new ArrayList<>());
    }
    if (spec.getInitContainers() == null) {
      spec.setInitContainers(new ArrayList<>());
    }
    spec.getInitContainers().forEach(PodDefaults::container);
    spec.getContainers().forEach(PodDefaults::container);
    if (spec.getVolumes() == null) {
      spec.setVolumes(new ArrayList<>());
    }
  }

  private static void container(Container c) {
    if (isBlank(c.getImagePullPolicy())) {
      c.setImagePullPolicy(defaultPullPolicy(c.getImage()));
    }
    if (isBlank(c.getTerminationMessagePath())) {
      c.setTerminationMessagePath("/dev/termination-log");
    }
    if (isBlank(c.getTerminationMessagePolicy())) {
      c.setTerminationMessagePolicy("File");
    }
    if (c.getPorts() != null) {
      for (ContainerPort p : c.getPorts()) {
        if (isBlank(p.getProtocol())) {
          p.setProtocol("TCP");
        }
      }
    }
    ResourceRequirements r = c.getResources();
    if (r == null) {
      r = new ResourceRequirements();
      c.setResources(r);
    }
    // Limits without requests: requests default to the limits.
    if (r.getLimits() != null && !r.getLimits().isEmpty()) {
      Map<String, Quantity> requests =
          r.getRequests() == null ? new HashMap<>() : new HashMap<>(r.getRequests());
      r.getLimits().forEach(requests::putIfAbsent);
      r.setRequests(requests);
    }
  }

  /** {@code Always} for an untagged or {@code :latest} image, else {@code IfNotPresent}. */
  public static String defaultPullPolicy(String image) {
    if (image == null) {
      return "IfNotPresent";
    }
    String ref = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
    if (image.contains("@")) {
      return "IfNotPresent";
    }
    int slash = ref.lastIndexOf('/');
    int colon = ref.lastIndexOf(':');
    boolean hasTag = colon > slash;
    String tag = hasTag ? ref.substring(colon + 1) : "latest";
    return "latest".equals(tag) ? "Always" : "IfNotPresent";
  }

  static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  static List<Container> allContainers(PodSpec spec) {
    List<Container> all = new ArrayList<>();
    if (spec.getInitContainers() != null) {
      all.addAll(spec.getInitContainers());
    }
    if (spec.getContainers() != null) {
      all.addAll(spec.getContainers());
    }
    return all;
  }
}
