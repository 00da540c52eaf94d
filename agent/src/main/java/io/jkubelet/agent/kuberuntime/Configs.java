package io.jkubelet.agent.kuberuntime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.jkubelet.agent.env.Expansion;
import io.jkubelet.agent.pod.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.config.Nullable;
import io.jkubelet.config.Records;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Turns a pod spec into the runtime's sandbox and container configs. */
public final class Configs {
  private Configs() {}

  public static PodRef ref(Pod pod) {
    return new PodRef(
        pod.getMetadata().getUid(), pod.getMetadata().getName(), pod.getMetadata().getNamespace());
  }

  /**
   * The sandbox of {@code pod}.
   *
   * @param hostname the kernel hostname of the pod's containers (ignored for host networking)
   * @param cgroupParent the pod's cgroup (the container manager's {@code cgroupParent}), or "" for
   *     the runtime's default
   */
  public static SandboxConfig sandbox(
      Pod pod,
      int attempt,
      String image,
      int oomScoreAdj,
      SandboxConfig.Dns dns,
      String hostname,
      String cgroupParent) {
    PodRef ref = ref(pod);
    boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    Map<String, String> labels = new LinkedHashMap<>();
    if (pod.getMetadata().getLabels() != null) {
      labels.putAll(pod.getMetadata().getLabels());
    }
    labels.putAll(Labels.podLabels(ref, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX));
    labels.put(Labels.HOST_NETWORK, Boolean.toString(hostNetwork));
    labels.put(Labels.NODE, nodeName(pod));
    List<SandboxConfig.PortMapping> ports = new ArrayList<>();
    for (Container c : allContainers(pod)) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (p.getHostPort() != null && p.getHostPort() > 0) {
          ports.add(
              new SandboxConfig.PortMapping(
                  p.getContainerPort(),
                  p.getHostPort(),
                  p.getHostIP() == null ? "" : p.getHostIP(),
                  p.getProtocol() == null ? "tcp" : p.getProtocol().toLowerCase(Locale.ROOT)));
        }
      }
    }
    return SandboxConfig.builder(ref, image)
        .attempt(attempt)
        .hostname(hostNetwork ? "" : hostname)
        .hostNetwork(hostNetwork)
        .ports(ports)
        .oomScoreAdj(oomScoreAdj)
        .labels(labels)
        .cpuShares(0)
        .security(SecurityContexts.sandbox(pod))
        .dns(dns)
        .cgroupParent(cgroupParent)
        .build();
  }

  /**
   * One instance of a container: where it goes and what it is given beyond its spec.
   *
   * @param sandboxId the sandbox it joins
   * @param restartCount its restart count (its name's last part, and a label)
   * @param volumePaths volume name → host path, from {@code VolumeManager.setUp}
   * @param env the resolved environment, in order
   * @param security the container's security context for the runtime
   * @param kubeletMounts the files the kubelet mounts itself: the termination log and /etc/hosts
   * @param cgroupParent the pod's cgroup (the container manager's {@code cgroupParent}), or ""
   */
  public record Instance(
      String sandboxId,
      int restartCount,
      Map<String, Path> volumePaths,
      List<EnvVar> env,
      ContainerConfig.Security security,
      List<ContainerConfig.Mount> kubeletMounts,
      @Nullable String cgroupParent) {
    public Instance {
      Records.requireNonNull(Instance.class, sandboxId, volumePaths, env, security, kubeletMounts);
    }

    /**
     * An instance with the runtime's default security and cgroup parent, and no file the kubelet
     * mounts itself (no termination log).
     */
    public static Instance of(
        String sandboxId, int restartCount, Map<String, Path> volumePaths, List<EnvVar> env) {
      return new Instance(
          sandboxId,
          restartCount,
          volumePaths,
          env,
          ContainerConfig.Security.DEFAULT,
          List.of(),
          "");
    }
  }

  /** The config of one instance of a container. */
  public static ContainerConfig container(Pod pod, Container c, boolean init, Instance at)
      throws StartException {
    String sandboxId = at.sandboxId();
    int restartCount = at.restartCount();
    PodRef ref = ref(pod);
    Map<String, String> envMap = new LinkedHashMap<>();
    List<String> envList = new ArrayList<>();
    for (EnvVar e : at.env()) {
      envMap.put(e.getName(), e.getValue());
      envList.add(e.getName() + "=" + e.getValue());
    }
    List<ContainerConfig.Mount> mounts = new ArrayList<>(mounts(pod, c, at.volumePaths(), envMap));
    mounts.addAll(at.kubeletMounts());
    return ContainerConfig.builder(
            Labels.containerName(ref, c.getName(), restartCount), c.getImage())
        .entrypoint(expand(c.getCommand(), envMap))
        .cmd(expand(c.getArgs(), envMap))
        .env(envList)
        .workingDir(c.getWorkingDir())
        .mounts(mounts)
        .resources(resources(c))
        .labels(containerLabels(pod, c, init, sandboxId, restartCount))
        .stdio(
            new ContainerConfig.Stdio(
                Boolean.TRUE.equals(c.getTty()),
                Boolean.TRUE.equals(c.getStdin()),
                Boolean.TRUE.equals(c.getStdinOnce())))
        .security(at.security())
        .cgroupParent(at.cgroupParent())
        .build();
  }

  /** dockershim's labels of a container, with what jkubelet needs to adopt it after a restart. */
  private static Map<String, String> containerLabels(
      Pod pod, Container c, boolean init, String sandboxId, int restartCount) {
    Map<String, String> labels =
        new LinkedHashMap<>(Labels.podLabels(ref(pod), c.getName(), Labels.TYPE_CONTAINER));
    labels.put(Labels.SANDBOX_ID, sandboxId);
    labels.put(Labels.CONTAINER_HASH, ContainerHash.of(c));
    labels.put(Labels.RESTART_COUNT, Integer.toString(restartCount));
    labels.put(Labels.TERMINATION_MESSAGE_PATH, nullToEmpty(c.getTerminationMessagePath()));
    labels.put(Labels.TERMINATION_MESSAGE_POLICY, nullToEmpty(c.getTerminationMessagePolicy()));
    labels.put(
        Labels.TERMINATION_GRACE_PERIOD,
        Long.toString(
            pod.getSpec().getTerminationGracePeriodSeconds() == null
                ? 30
                : pod.getSpec().getTerminationGracePeriodSeconds()));
    labels.put(Labels.CONTAINER_KIND, init ? "init" : "app");
    labels.put(Labels.NODE, nodeName(pod));
    return labels;
  }

  /**
   * The container's volume mounts, with {@code subPath}s (or {@code subPathExpr}s expanded from the
   * container's environment) created inside their volume, and their propagation.
   */
  private static List<ContainerConfig.Mount> mounts(
      Pod pod, Container c, Map<String, Path> volumePaths, Map<String, String> env)
      throws StartException {
    List<ContainerConfig.Mount> mounts = new ArrayList<>();
    if (c.getVolumeMounts() == null) {
      return mounts;
    }
    for (VolumeMount m : c.getVolumeMounts()) {
      Path host = volumePaths.get(m.getName());
      if (host == null) {
        throw new StartException(
            WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
            "cannot find volume \""
                + m.getName()
                + "\" to mount into container \""
                + c.getName()
                + "\"");
      }
      String sub = m.getSubPath();
      if (m.getSubPathExpr() != null && !m.getSubPathExpr().isEmpty()) {
        sub = subPathExpr(m.getSubPathExpr(), env);
      }
      if (sub != null && !sub.isEmpty()) {
        host = subPath(host, sub);
      }
      mounts.add(
          new ContainerConfig.Mount(
              host.toString(),
              m.getMountPath(),
              Boolean.TRUE.equals(m.getReadOnly()) || mustMountReadOnly(pod, m.getName()),
              propagation(m.getMountPropagation())));
    }
    return mounts;
  }

  private static boolean mustMountReadOnly(Pod pod, String volume) {
    return pod.getSpec().getVolumes() != null
        && pod.getSpec().getVolumes().stream()
            .anyMatch(v -> v.getName().equals(volume) && VolumeManager.mustMountReadOnly(v));
  }

  private static ContainerConfig.Propagation propagation(String p) {
    return switch (p == null ? "" : p) {
      case "HostToContainer" -> ContainerConfig.Propagation.HOST_TO_CONTAINER;
      case "Bidirectional" -> ContainerConfig.Propagation.BIDIRECTIONAL;
      default -> ContainerConfig.Propagation.PRIVATE;
    };
  }

  /** upstream's {@code ExpandContainerVolumeMounts}: every variable must have a value. */
  static String subPathExpr(String expr, Map<String, String> env) throws StartException {
    java.util.TreeSet<String> missing = new java.util.TreeSet<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\$\\(([^)]*)\\)").matcher(expr.replace("$$", ""));
    while (m.find()) {
      String v = env.get(m.group(1));
      if (v == null || v.isEmpty()) {
        missing.add(m.group(1));
      }
    }
    if (!missing.isEmpty()) {
      throw new StartException(
          WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
          "missing value for " + String.join(", ", missing));
    }
    return expand(expr, env);
  }

  /** The subPath inside the volume, created when missing; it must not leave the volume. */
  private static Path subPath(Path volume, String subPath) throws StartException {
    if (subPath.startsWith("/")) {
      throw new StartException(
          WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
          "error SubPath `" + subPath + "` must not be an absolute path");
    }
    Path sub = volume.resolve(subPath).normalize();
    if (java.util.Arrays.asList(subPath.split("/")).contains("..") || !sub.startsWith(volume)) {
      throw new StartException(
          WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
          "unable to provision SubPath `" + subPath + "`: must not contain '..'");
    }
    try {
      if (!java.nio.file.Files.exists(sub)) {
        java.nio.file.Files.createDirectories(sub);
      }
    } catch (java.io.IOException e) {
      throw new StartException(
          WaitingReasons.CREATE_CONTAINER_CONFIG_ERROR,
          "cannot create subPath " + sub + ": " + e.getMessage());
    }
    return sub;
  }

  /** The CFS period that dockershim sets on every container (the CPUCFSQuotaPeriod default). */
  static final long CFS_PERIOD_MICROS = 100_000;

  /**
   * cgroup settings from {@code resources}, as upstream's generateLinuxContainerConfig computes
   * them: shares from the CPU request (from the limit when only a limit is set, and the minimum of
   * 2 for neither), a CFS quota from the CPU limit over a 100 ms period, the memory limit as it is.
   */
  public static ContainerConfig.Resources resources(Container c) {
    Map<String, Quantity> limits = c.getResources() == null ? null : c.getResources().getLimits();
    Map<String, Quantity> requests =
        c.getResources() == null ? null : c.getResources().getRequests();
    long cpuRequest = milliCpu(requests, "cpu");
    long cpuLimit = milliCpu(limits, "cpu");
    long shares = milliCpuToShares(cpuRequest == 0 && cpuLimit != 0 ? cpuLimit : cpuRequest);
    long quota = cpuLimit == 0 ? 0 : Math.max(1000, cpuLimit * CFS_PERIOD_MICROS / 1000);
    long memory =
        limits != null && limits.get("memory") != null
            ? limits.get("memory").getNumericalAmount().longValue()
            : 0;
    return new ContainerConfig.Resources(shares, quota, CFS_PERIOD_MICROS, memory, 0);
  }

  /** upstream's MilliCPUToShares: 1024 per core, never under the kernel's minimum of 2. */
  static long milliCpuToShares(long milliCpu) {
    return Math.max(2, milliCpu * 1024 / 1000);
  }

  private static long milliCpu(Map<String, Quantity> list, String name) {
    return list == null || list.get(name) == null ? 0 : milliCpu(list.get(name));
  }

  static long milliCpu(Quantity q) {
    return q.getNumericalAmount()
        .multiply(BigDecimal.valueOf(1000))
        .setScale(0, java.math.RoundingMode.CEILING)
        .longValue();
  }

  /** {@code $(VAR)} expansion as the kubelet does it: {@code $$} escapes, unknown names stay. */
  static List<String> expand(List<String> in, Map<String, String> env) {
    if (in == null || in.isEmpty()) {
      return null;
    }
    List<String> out = new ArrayList<>(in.size());
    for (String s : in) {
      out.add(expand(s, env));
    }
    return out;
  }

  public static String expand(String s, Map<String, String> env) {
    return Expansion.expand(s, Expansion.mappingFor(env));
  }

  private static String nodeName(Pod pod) {
    return pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
  }

  static List<Container> allContainers(Pod pod) {
    List<Container> all = new ArrayList<>();
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    all.addAll(pod.getSpec().getContainers());
    return all;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
