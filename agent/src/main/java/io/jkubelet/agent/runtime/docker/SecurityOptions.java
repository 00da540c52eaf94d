package io.jkubelet.agent.runtime.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The security context on the engine, as dockershim's {@code applyContainerSecurityContext}, {@code
 * applySandboxSecurityContext} and {@code getSeccompSecurityOpts}. Stateless; a Localhost seccomp
 * profile is read from disk at each create, as dockershim reads it.
 */
final class SecurityOptions {
  static final String NO_NEW_PRIVILEGES = "no-new-privileges";
  static final String SECCOMP_UNCONFINED = "seccomp=unconfined";
  private static final String LOCALHOST_PREFIX = "localhost/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private SecurityOptions() {}

  /** Applies an app container's security context; an unusable one is {@code CREATE}. */
  static void container(
      ContainerConfig.Security sc, String sandboxId, CreateContainerCmd cmd, HostConfig host) {
    if (!sc.user().isEmpty()) {
      cmd.withUser(sc.user());
    }
    if (!sc.supplementalGroups().isEmpty()) {
      host.withGroupAdd(sc.supplementalGroups().stream().map(String::valueOf).toList());
    }
    host.withPrivileged(sc.privileged()).withReadonlyRootfs(sc.readOnlyRootfs());
    if (!sc.capabilities().add().isEmpty()) {
      host.withCapAdd(capabilities("CapAdd", sc.capabilities().add()));
    }
    if (!sc.capabilities().drop().isEmpty()) {
      host.withCapDrop(capabilities("CapDrop", sc.capabilities().drop()));
    }
    List<String> opts = new ArrayList<>(seccomp(sc.seccompProfile()));
    if (sc.noNewPrivileges()) {
      opts.add(NO_NEW_PRIVILEGES);
    }
    if (!opts.isEmpty()) {
      host.withSecurityOpts(opts);
    }
    switch (sc.namespaces().pid()) {
      case NODE -> host.withPidMode("host");
      case POD -> host.withPidMode("container:" + sandboxId);
      case CONTAINER -> {
        // its own
      }
    }
    if (sc.namespaces().hostNetwork()) {
      host.withUtSMode("host");
    }
  }

  /**
   * Applies the pod-level context to the sandbox: its user and groups, the host's PID or IPC
   * namespace, the sysctls, and always {@code no-new-privileges} (the engine's default seccomp).
   */
  static void sandbox(SandboxConfig.Security sc, CreateContainerCmd cmd, HostConfig host) {
    if (sc.runAsUser() != null) {
      // dockershim fails a group without a user; the sandbox then keeps its image's user instead.
      cmd.withUser(sc.runAsUser() + (sc.runAsGroup() == null ? "" : ":" + sc.runAsGroup()));
    }
    if (!sc.supplementalGroups().isEmpty()) {
      host.withGroupAdd(sc.supplementalGroups().stream().map(String::valueOf).toList());
    }
    if (sc.hostPid()) {
      host.withPidMode("host");
    }
    host.withIpcMode(sc.hostIpc() ? "host" : "shareable");
    if (!sc.sysctls().isEmpty()) {
      host.withSysctls(sc.sysctls());
    }
    host.withSecurityOpts(List.of(NO_NEW_PRIVILEGES));
  }

  /**
   * dockershim's {@code getSeccompDockerOpts}: unconfined unless asked otherwise (upstream v1.20
   * leaves the engine's default profile to {@code runtime/default}), a Localhost profile inlined as
   * compact JSON.
   */
  static List<String> seccomp(String profile) {
    if (profile.isEmpty() || profile.equals("unconfined")) {
      return List.of(SECCOMP_UNCONFINED);
    }
    if (profile.equals("runtime/default") || profile.equals("docker/default")) {
      return List.of();
    }
    if (!profile.startsWith(LOCALHOST_PREFIX)) {
      throw new RuntimeError(
          Kind.CREATE,
          "failed to generate seccomp security options for container: unknown seccomp profile"
              + " option: "
              + profile);
    }
    String file = profile.substring(LOCALHOST_PREFIX.length());
    Path path = Path.of(file);
    if (!path.isAbsolute()) {
      throw new RuntimeError(
          Kind.CREATE,
          "failed to generate seccomp security options for container: seccomp profile path must"
              + " be absolute, but got relative path \""
              + file
              + "\"");
    }
    try {
      return List.of("seccomp=" + JSON.readTree(Files.readString(path)).toString());
    } catch (JsonProcessingException e) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.CREATE,
              "failed to generate seccomp security options for container: "
                  + e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.CREATE,
              "failed to generate seccomp security options for container: cannot load seccomp profile"
                  + " \""
                  + file
                  + "\": "
                  + e.getMessage()),
          e);
    }
  }

  /** Names as the spec writes them ({@code net_admin}, {@code CAP_NET_ADMIN}) to the engine's. */
  static Capability[] capabilities(String field, List<String> names) {
    Capability[] out = new Capability[names.size()];
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i).toUpperCase(Locale.ROOT);
      String bare = name.startsWith("CAP_") ? name.substring(4) : name;
      try {
        out[i] = Capability.valueOf(bare);
      } catch (IllegalArgumentException e) {
        throw new RuntimeError(
            Kind.CREATE,
            "invalid "
                + field
                + ": unknown capability: \""
                + (bare.equals("ALL") ? bare : "CAP_" + bare)
                + "\"");
      }
    }
    return out;
  }
}
