package io.jkubelet.agent.cli;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
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

/**
 * Reads {@code --kubeconfig} into a client configuration, as fabric8's {@code
 * Config.fromKubeconfig} does (its current context; files named relative to the kubeconfig's
 * directory), but parsed with {@link ApiSerialization}: fabric8's own parser finds and loads every
 * kind it ships on the way (about 900 classes and 15 MiB of resident memory that stay for the life
 * of the process).
 */
final class Kubeconfig {
  private Kubeconfig() {}

  /** Reads a kubeconfig; a file that cannot be used is a configuration error naming the flag. */
  static Config load(Path kubeconfig) {
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
      return config;
    } catch (RuntimeException e) {
      if (e instanceof ConfigException ce) {
        throw ce;
      }
      throw new ConfigException(
          "--kubeconfig", kubeconfig + " is not a usable kubeconfig: " + e.getMessage());
    }
  }

  /** Whether the current context names a cluster with a server. */
  private static boolean namesAServer(io.fabric8.kubernetes.api.model.Config model, Config config) {
    if (config.getCurrentContext() == null
        || config.getCurrentContext().getContext() == null
        || model.getClusters() == null) {
      return false;
    }
    String name = config.getCurrentContext().getContext().getCluster();
    return model.getClusters().stream()
        .anyMatch(
            c ->
                c.getName() != null
                    && c.getName().equals(name)
                    && c.getCluster() != null
                    && c.getCluster().getServer() != null
                    && !c.getCluster().getServer().isBlank());
  }

  /** A file named relative to the kubeconfig's directory, as an absolute path. */
  private static String resolve(Path dir, String file) {
    return file == null || file.isEmpty() ? file : dir.resolve(file).normalize().toString();
  }
}
