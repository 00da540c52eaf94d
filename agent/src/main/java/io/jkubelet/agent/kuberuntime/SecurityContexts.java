package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod's and the container's security contexts for the runtime, as upstream's {@code
 * securitycontext.DetermineEffectiveSecurityContext} (the container's fields win over the pod's),
 * {@code determineEffectiveSecurityContext}, {@code verifyRunAsNonRoot}, {@code
 * getSeccompProfilePath} and {@code generatePodSandboxLinuxConfig}. Pure functions.
 */
final class SecurityContexts {
  static final String SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
  static final String SECCOMP_CONTAINER_ANNOTATION_PREFIX =
      "container.seccomp.security.alpha.kubernetes.io/";

  private SecurityContexts() {}

  /**
   * The user an image runs as, as upstream's {@code getImageUser}: a numeric {@code uid}, or a
   * {@code username}; an image that names none runs as uid 0.
   */
  record ImageUser(Long uid, String username) {
    /** Not asked: the image's own user applies. */
    static final ImageUser UNKNOWN = new ImageUser(null, "");

    /**
     * From the image config's {@code USER} ({@code uid}, {@code name}, with or without a group).
     */
    static ImageUser parse(String user) {
      String u = user == null ? "" : user;
      int colon = u.indexOf(':');
      if (colon >= 0) {
        u = u.substring(0, colon);
      }
      if (u.isEmpty()) {
        return new ImageUser(0L, "");
      }
      try {
        return new ImageUser(Long.parseLong(u), "");
      } catch (NumberFormatException e) {
        return new ImageUser(null, u);
      }
    }
  }

  /** The container's security context over the pod's: the container's fields win. */
  static SecurityContext effective(Pod pod, Container c) {
    PodSecurityContext p = pod.getSpec().getSecurityContext();
    SecurityContext out = new SecurityContext();
    if (p != null) {
      out.setRunAsUser(p.getRunAsUser());
      out.setRunAsGroup(p.getRunAsGroup());
      out.setRunAsNonRoot(p.getRunAsNonRoot());
      out.setSeLinuxOptions(p.getSeLinuxOptions());
    }
    SecurityContext s = c.getSecurityContext();
    if (s == null) {
      return out;
    }
    if (s.getSeLinuxOptions() != null) {
      out.setSeLinuxOptions(s.getSeLinuxOptions());
    }
    if (s.getCapabilities() != null) {
      out.setCapabilities(s.getCapabilities());
    }
    if (s.getPrivileged() != null) {
      out.setPrivileged(s.getPrivileged());
    }
    if (s.getRunAsUser() != null) {
      out.setRunAsUser(s.getRunAsUser());
    }
    if (s.getRunAsGroup() != null) {
      out.setRunAsGroup(s.getRunAsGroup());
    }
    if (s.getRunAsNonRoot() != null) {
      out.setRunAsNonRoot(s.getRunAsNonRoot());
    }
    if (s.getReadOnlyRootFilesystem() != null) {
      out.setReadOnlyRootFilesystem(s.getReadOnlyRootFilesystem());
    }
    if (s.getAllowPrivilegeEscalation() != null) {
      out.setAllowPrivilegeEscalation(s.getAllowPrivilegeEscalation());
    }
    if (s.getProcMount() != null) {
      out.setProcMount(s.getProcMount());
    }
    return out;
  }

  /**
   * Upstream's {@code verifyRunAsNonRoot}: with {@code runAsNonRoot}, the user must be known not to
   * be root.
   *
   * @throws StartException CreateContainerConfigError with upstream's message
   */
  static void verifyRunAsNonRoot(Pod pod, Container c, ImageUser image) throws StartException {
    SecurityContext sc = effective(pod, c);
    if (!Boolean.TRUE.equals(sc.getRunAsNonRoot())) {
      return;
    }
    String where =
        String.format(
            "(pod: \"%s_%s(%s)\", container: %s)",
            pod.getMetadata().getName(),
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getUid(),
            c.getName());
    String problem = null;
    if (sc.getRunAsUser() != null) {
      if (sc.getRunAsUser() == 0) {
        problem = "container's runAsUser breaks non-root policy " + where;
      }
    } else if (image.uid() != null && image.uid() == 0) {
      problem = "container has runAsNonRoot and image will run as root " + where;
    } else if (image.uid() == null && !image.username().isEmpty()) {
      problem =
          "container has runAsNonRoot and image has non-numeric user ("
              + image.username()
              + "), cannot verify user is non-root "
              + where;
    }
    if (problem != null) {
      throw new StartException(WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR, problem);
    }
  }

  /**
   * The container's security for the runtime, with the image's user where none is asked.
   *
   * @throws StartException CreateContainerConfigError for a Localhost seccomp profile outside the
   *     profile root (the API server refuses {@code ..}; a static pod could still ask)
   */
  static ContainerConfig.Security container(Pod pod, Container c, ImageUser image, Path seccompRoot)
      throws StartException {
    SecurityContext sc = effective(pod, c);
    String user;
    if (sc.getRunAsUser() != null) {
      user = Long.toString(sc.getRunAsUser());
    } else if (image.uid() != null) {
      user = Long.toString(image.uid());
    } else {
      user = image.username();
    }
    if (sc.getRunAsGroup() != null && !user.isEmpty()) {
      user = user + ":" + sc.getRunAsGroup();
    }
    Capabilities caps = sc.getCapabilities();
    String seccomp = seccompProfile(pod, c, seccompRoot);
    if (seccomp.startsWith("localhost/")
        && !Path.of(seccomp.substring("localhost/".length())).startsWith(seccompRoot.normalize())) {
      throw new StartException(
          WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
          "seccomp profile " + seccomp + " is not under " + seccompRoot);
    }
    return new ContainerConfig.Security(
        user,
        groups(pod.getSpec().getSecurityContext()),
        Boolean.TRUE.equals(sc.getPrivileged()),
        new ContainerConfig.Capabilities(
            caps == null || caps.getAdd() == null ? List.of() : caps.getAdd(),
            caps == null || caps.getDrop() == null ? List.of() : caps.getDrop()),
        Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()),
        Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation()),
        seccomp,
        new ContainerConfig.Namespaces(
            pidMode(pod), Boolean.TRUE.equals(pod.getSpec().getHostNetwork())));
  }

  /** The sandbox's pod-level security: user, groups, host namespaces and sysctls. */
  static SandboxConfig.Security sandbox(Pod pod) {
    PodSecurityContext p = pod.getSpec().getSecurityContext();
    Map<String, String> sysctls = new LinkedHashMap<>();
    if (p != null && p.getSysctls() != null) {
      for (Sysctl s : p.getSysctls()) {
        sysctls.put(s.getName(), s.getValue() == null ? "" : s.getValue());
      }
    }
    return new SandboxConfig.Security(
        p == null ? null : p.getRunAsUser(),
        p == null ? null : p.getRunAsGroup(),
        groups(p),
        Boolean.TRUE.equals(pod.getSpec().getHostPID()),
        Boolean.TRUE.equals(pod.getSpec().getHostIPC()),
        sysctls);
  }

  /** {@code fsGroup}, then {@code supplementalGroups}, as upstream. */
  private static List<Long> groups(PodSecurityContext p) {
    List<Long> groups = new ArrayList<>();
    if (p != null) {
      if (p.getFsGroup() != null) {
        groups.add(p.getFsGroup());
      }
      if (p.getSupplementalGroups() != null) {
        groups.addAll(p.getSupplementalGroups());
      }
    }
    return groups;
  }

  private static ContainerConfig.NamespaceMode pidMode(Pod pod) {
    if (Boolean.TRUE.equals(pod.getSpec().getHostPID())) {
      return ContainerConfig.NamespaceMode.NODE;
    }
    if (Boolean.TRUE.equals(pod.getSpec().getShareProcessNamespace())) {
      return ContainerConfig.NamespaceMode.POD;
    }
    return ContainerConfig.NamespaceMode.CONTAINER;
  }

  /**
   * Upstream's {@code getSeccompProfilePath}: the container's field, its annotation, the pod's
   * field, the pod's annotation; "" when none says.
   */
  static String seccompProfile(Pod pod, Container c, Path root) {
    if (c.getSecurityContext() != null && c.getSecurityContext().getSeccompProfile() != null) {
      return fieldProfile(c.getSecurityContext().getSeccompProfile(), root);
    }
    Map<String, String> annotations =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    String own = annotations.get(SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.getName());
    if (own != null) {
      return annotationProfile(own, root);
    }
    PodSecurityContext p = pod.getSpec().getSecurityContext();
    if (p != null && p.getSeccompProfile() != null) {
      return fieldProfile(p.getSeccompProfile(), root);
    }
    String podWide = annotations.get(SECCOMP_POD_ANNOTATION);
    return podWide == null ? "" : annotationProfile(podWide, root);
  }

  private static String fieldProfile(SeccompProfile p, Path root) {
    String type = p.getType() == null ? "" : p.getType();
    return switch (type) {
      case "RuntimeDefault" -> "runtime/default";
      case "Unconfined" -> "unconfined";
      case "Localhost" ->
          p.getLocalhostProfile() == null || p.getLocalhostProfile().isEmpty()
              ? ""
              : "localhost/" + root.resolve(p.getLocalhostProfile()).normalize();
      default -> "";
    };
  }

  private static String annotationProfile(String profile, Path root) {
    if (profile.startsWith("localhost/")) {
      return "localhost/" + root.resolve(profile.substring("localhost/".length())).normalize();
    }
    return profile;
  }
}
