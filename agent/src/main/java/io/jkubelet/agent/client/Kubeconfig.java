package io.jkubelet.agent.client;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.Context;
import io.fabric8.kubernetes.api.model.ExecConfig;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.jkubelet.agent.util.ApiSerialization;
import io.jkubelet.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * Reads {@code --kubeconfig} into a client configuration, as fabric8's {@code
 * Config.fromKubeconfig} does (its current context; files named relative to the kubeconfig's
 * directory), but parsed with {@link ApiSerialization}: fabric8's own parser finds and loads every
 * kind it ships on the way (about 900 classes and 15 MiB of resident memory that stay for the life
 * of the process). A user's {@code tokenFile}, which fabric8 ignores, is read as client-go reads it
 * ({@link TokenFile}).
 */
public final class Kubeconfig {
  private Kubeconfig() {}

  /**
   * Reads a kubeconfig, with the clock that times re-reads of a {@code tokenFile}.
   *
   * @throws ConfigException when the file cannot be used, naming the flag
   */
  public static Config load(Path kubeconfig, Clock clock) {
    String content;
    try {
      content = Files.readString(kubeconfig);
    } catch (IOException e) {
      throw new ConfigException(
          "--kubeconfig", "cannot read " + kubeconfig + ": " + e.getMessage());
    }
    try {
      var model =
          ApiSerialization.SHARED.unmarshal(content, io.fabric8.kubernetes.api.model.Config.class);
      if (model == null) {
        throw new ConfigException("--kubeconfig", kubeconfig + " is empty");
      }
      Path dir = kubeconfig.toAbsolutePath().getParent();
      if (model.getClusters() != null) {
        for (NamedCluster c : model.getClusters()) {
          Cluster cluster = c.getCluster();
          if (cluster != null) {
            cluster.setCertificateAuthority(resolve(dir, cluster.getCertificateAuthority()));
          }
        }
      }
      if (model.getUsers() != null) {
        for (NamedAuthInfo u : model.getUsers()) {
          AuthInfo user = u.getUser();
          if (user != null) {
            user.setClientCertificate(resolve(dir, user.getClientCertificate()));
            user.setClientKey(resolve(dir, user.getClientKey()));
            ExecConfig exec = user.getExec();
            if (exec != null && exec.getCommand() != null && exec.getCommand().contains("/")) {
              exec.setCommand(resolve(dir, exec.getCommand()));
            }
          }
        }
      }
      Config config = Config.empty();
      KubeConfigUtils.merge(config, null, model);
      if (!namesAServer(model, config)) {
        // Left so, the client would go to its default, https://kubernetes.default.svc.
        throw new ConfigException("--kubeconfig", kubeconfig + " names no server");
      }
      Config.configFromSysPropsOrEnvVars(config);
      tokenFile(model, config, dir).ifPresent(f -> useTokenFile(config, f, clock));
      return config;
    } catch (RuntimeException e) {
      if (e instanceof ConfigException ce) {
        throw ce;
      }
      throw new ConfigException(
          "--kubeconfig", kubeconfig + " is not a usable kubeconfig: " + e.getMessage());
    }
  }

  /**
   * The current user's {@code tokenFile}, named relative to the kubeconfig's directory, when it has
   * no {@code token} of its own (client-go's order).
   */
  private static Optional<Path> tokenFile(
      io.fabric8.kubernetes.api.model.Config model, Config config, Path dir) {
    String name = currentContext(config).map(Context::getUser).orElse(null);
    if (name == null || model.getUsers() == null) {
      return Optional.empty();
    }
    return model.getUsers().stream()
        .filter(u -> name.equals(u.getName()) && u.getUser() != null)
        .map(NamedAuthInfo::getUser)
        .filter(u -> u.getToken() == null || u.getToken().isEmpty())
        .map(AuthInfo::getTokenFile)
        .filter(f -> f != null && !f.isEmpty())
        .findFirst()
        .map(f -> dir.resolve(f).normalize());
  }

  private static void useTokenFile(Config config, Path file, Clock clock) {
    try {
      config.setOauthTokenProvider(TokenFile.open(file, clock));
    } catch (IOException e) {
      throw new ConfigException(
          "--kubeconfig", "the token file " + file + " cannot be read: " + e.getMessage());
    }
  }

  /** Whether the current context names a cluster with a server. */
  private static boolean namesAServer(io.fabric8.kubernetes.api.model.Config model, Config config) {
    String name = currentContext(config).map(Context::getCluster).orElse(null);
    if (name == null || model.getClusters() == null) {
      return false;
    }
    return model.getClusters().stream()
        .anyMatch(
            c ->
                name.equals(c.getName())
                    && c.getCluster() != null
                    && c.getCluster().getServer() != null
                    && !c.getCluster().getServer().isBlank());
  }

  /** The current context, as merged into the client configuration. */
  private static Optional<Context> currentContext(Config config) {
    return Optional.ofNullable(config.getCurrentContext()).map(c -> c.getContext());
  }

  /** A file named relative to the kubeconfig's directory, as an absolute path. */
  private static String resolve(Path dir, String file) {
    return file == null || file.isEmpty() ? file : dir.resolve(file).normalize().toString();
  }
}
