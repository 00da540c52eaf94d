package io.jkubelet.agent.credentials;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's own credentials, from a Docker config file, as upstream's default {@code .dockercfg}
 * provider: the first {@code config.json} that exists and parses, in {@code <root-dir>}, the
 * working directory, {@code $HOME/.docker} and {@code /.docker}; failing that, the first legacy
 * {@code .dockercfg} in {@code <root-dir>}, the working directory, {@code $HOME} and {@code /};
 * else none. What was read is kept for five minutes, as upstream's {@code
 * CachingDockerConfigProvider}.
 *
 * <p>Thread-safe: lookups synchronize on the keyring, which guards the cached one.
 */
public final class NodeKeyring implements Keyring {
  private static final Logger log = LoggerFactory.getLogger(NodeKeyring.class);

  /** How long a read config is used, as upstream's. */
  public static final Duration LIFETIME = Duration.ofMinutes(5);

  /** The files to try, first to last: the {@code config.json} ones, then the legacy ones. */
  public record SearchPaths(List<Path> configJsonFiles, List<Path> dockercfgFiles) {
    public SearchPaths {
      configJsonFiles = List.copyOf(configJsonFiles);
      dockercfgFiles = List.copyOf(dockercfgFiles);
    }

    /** Upstream's search list, for a root directory, a working directory and a home directory. */
    public static SearchPaths upstream(Path rootDir, Path workingDir, Path homeDir) {
      Path fsRoot = workingDir.toAbsolutePath().getRoot();
      return new SearchPaths(
          List.of(
              rootDir.resolve("config.json"),
              workingDir.resolve("config.json"),
              homeDir.resolve(".docker").resolve("config.json"),
              fsRoot.resolve(".docker").resolve("config.json")),
          List.of(
              rootDir.resolve(".dockercfg"),
              workingDir.resolve(".dockercfg"),
              homeDir.resolve(".dockercfg"),
              fsRoot.resolve(".dockercfg")));
    }
  }

  private final SearchPaths paths;
  private final Clock clock;
  private BasicKeyring cached; // guarded by this
  private Instant expiry; // guarded by this

  public NodeKeyring(SearchPaths paths, Clock clock) {
    this.paths = paths;
    this.clock = clock;
  }

  @Override
  public List<AuthConfig> lookup(String repository) {
    return current().lookup(repository);
  }

  private synchronized BasicKeyring current() {
    Instant now = clock.instant();
    if (cached == null || !now.isBefore(expiry)) {
      cached = BasicKeyring.of(List.of(read()));
      expiry = now.plus(LIFETIME);
    }
    return cached;
  }

  /** The first config found, or an empty one. */
  private Map<String, AuthConfig> read() {
    for (Path p : paths.configJsonFiles()) {
      Map<String, AuthConfig> cfg = readOne(p, true);
      if (cfg != null) {
        return cfg;
      }
    }
    for (Path p : paths.dockercfgFiles()) {
      Map<String, AuthConfig> cfg = readOne(p, false);
      if (cfg != null) {
        return cfg;
      }
    }
    log.debug("Keyring: no Docker config file in {}", paths);
    return Map.of();
  }

  private static Map<String, AuthConfig> readOne(Path file, boolean configJson) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      log.debug("Keyring: while trying to read {}: {}", file, e.toString());
      return null;
    }
    try {
      Map<String, AuthConfig> cfg =
          configJson ? DockerConfigs.parseConfigJson(bytes) : DockerConfigs.parseDockercfg(bytes);
      log.debug("Keyring: found {} with {} registries", file, cfg.size());
      return cfg;
    } catch (InvalidDockerConfig e) {
      log.info("Keyring: couldn't get the Docker config from {}: {}", file, e.getMessage());
      return null;
    }
  }
}
