package io.jkubelet.agent.admission;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Sysctl;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which sysctls a pod may set, as upstream's {@code sysctl.patternWhitelist}: the safe ones, plus
 * the node's {@code allowedUnsafeSysctls} (names, or prefixes ending in {@code *}), and none of the
 * net namespace on the host's network, nor of the IPC namespace with {@code hostIPC}. Immutable, so
 * thread-safe.
 */
public final class Sysctls {
  /** The reason of a pod refused for its sysctls. */
  public static final String FORBIDDEN_REASON = "SysctlForbidden";

  /** Upstream's {@code SafeSysctlWhitelist}: namespaced, and with no effect on other pods. */
  public static final List<String> SAFE =
      List.of(
          "kernel.shm_rmid_forced",
          "net.ipv4.ip_local_port_range",
          "net.ipv4.tcp_syncookies",
          "net.ipv4.ping_group_range");

  private static final String SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
  private static final Pattern PATTERN =
      Pattern.compile("(" + SEGMENT + "\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]");
  private static final int MAX_LENGTH = 253;

  private final Map<String, String> names;
  private final Map<String, String> prefixes;

  private Sysctls(Map<String, String> names, Map<String, String> prefixes) {
    this.names = names;
    this.prefixes = prefixes;
  }

  /**
   * The safe sysctls and these.
   *
   * @throws IllegalArgumentException with upstream's message, for a malformed pattern or one not
   *     known to be namespaced
   */
  public static Sysctls allowing(List<String> allowedUnsafe) {
    Map<String, String> names = new LinkedHashMap<>();
    Map<String, String> prefixes = new LinkedHashMap<>();
    List<String> all = new ArrayList<>(SAFE);
    all.addAll(allowedUnsafe);
    for (String s : all) {
      if (s.length() > MAX_LENGTH || !PATTERN.matcher(s).matches()) {
        throw new IllegalArgumentException(
            String.format(
                "sysctl \"%s\" must have at most %d characters and match regex %s",
                s, MAX_LENGTH, PATTERN.pattern()));
      }
      if (s.endsWith("*")) {
        String prefix = s.substring(0, s.length() - 1);
        prefixes.put(prefix, namespaceOf(prefix).orElseThrow(() -> notNamespaced("sysctls", s)));
      } else {
        names.put(s, namespaceOf(s).orElseThrow(() -> notNamespaced("sysctl", s)));
      }
    }
    return new Sysctls(names, prefixes);
  }

  private static IllegalArgumentException notNamespaced(String what, String s) {
    return new IllegalArgumentException(
        String.format("the %s \"%s\" are not known to be namespaced", what, s));
  }

  /** The namespace ({@code ipc} or {@code net}) a sysctl belongs to, as upstream's table. */
  static Optional<String> namespaceOf(String sysctl) {
    if (sysctl.equals("kernel.sem")
        || sysctl.startsWith("kernel.shm")
        || sysctl.startsWith("kernel.msg")
        || sysctl.startsWith("fs.mqueue.")) {
      return Optional.of("ipc");
    }
    return sysctl.startsWith("net.") ? Optional.of("net") : Optional.empty();
  }

  /** Why the pod may not run, with upstream's message; empty when it may. */
  public Optional<String> forbidden(Pod pod) {
    if (pod.getSpec().getSecurityContext() == null
        || pod.getSpec().getSecurityContext().getSysctls() == null) {
      return Optional.empty();
    }
    boolean hostNet = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    boolean hostIpc = Boolean.TRUE.equals(pod.getSpec().getHostIPC());
    for (Sysctl s : pod.getSpec().getSecurityContext().getSysctls()) {
      Optional<String> problem = check(s.getName() == null ? "" : s.getName(), hostNet, hostIpc);
      if (problem.isPresent()) {
        return Optional.of("forbidden sysctl: " + problem.get());
      }
    }
    return Optional.empty();
  }

  private Optional<String> check(String sysctl, boolean hostNet, boolean hostIpc) {
    String ns = names.get(sysctl);
    if (ns == null) {
      ns =
          prefixes.entrySet().stream()
              .filter(e -> sysctl.startsWith(e.getKey()))
              .map(Map.Entry::getValue)
              .findFirst()
              .orElse(null);
    }
    if (ns == null) {
      return Optional.of("\"" + sysctl + "\" not whitelisted");
    }
    if (ns.equals("ipc") && hostIpc || ns.equals("net") && hostNet) {
      return Optional.of("\"" + sysctl + "\" not allowed with host " + ns + " enabled");
    }
    return Optional.empty();
  }
}
