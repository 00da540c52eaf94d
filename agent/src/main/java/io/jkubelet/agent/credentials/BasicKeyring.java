package io.jkubelet.agent.credentials;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyring of some Docker configs, as upstream's {@code BasicDockerKeyring}. Each location is
 * keyed by its host and path (a scheme dropped; a {@code /v1/} or {@code /v2/} path prefix
 * dropped), and the keys are tried in reverse lexical order, so that the longer of two paths on a
 * host comes first. A lookup returns the credentials of every key that {@linkplain
 * RegistryUrls#matches matches} the repository; failing that, those of {@code index.docker.io} for
 * a Docker Hub repository. Immutable, so thread-safe.
 */
public final class BasicKeyring implements Keyring {
  private static final Logger log = LoggerFactory.getLogger(BasicKeyring.class);

  static final String DEFAULT_REGISTRY_HOST = "index.docker.io";

  private final List<String> index;
  private final Map<String, List<AuthConfig>> creds;

  private BasicKeyring(List<String> index, Map<String, List<AuthConfig>> creds) {
    this.index = index;
    this.creds = creds;
  }

  /** The keyring of these configs (location to credential), in order. */
  public static BasicKeyring of(List<Map<String, AuthConfig>> configs) {
    Map<String, List<AuthConfig>> creds = new HashMap<>();
    TreeSet<String> keys = new TreeSet<>();
    for (Map<String, AuthConfig> config : configs) {
      for (var e : config.entrySet()) {
        String key = key(e.getKey());
        if (key == null) {
          continue;
        }
        creds.computeIfAbsent(key, k -> new ArrayList<>()).add(e.getValue());
        keys.add(key);
      }
    }
    return new BasicKeyring(List.copyOf(keys.descendingSet()), creds);
  }

  /** The key of a config's location, or null (logged) when it is not a URL. */
  static String key(String location) {
    String value = location;
    if (value.startsWith("https://")) {
      value = value.substring("https://".length());
    } else if (value.startsWith("http://")) {
      value = value.substring("http://".length());
    }
    RegistryUrls.Url parsed;
    try {
      parsed = RegistryUrls.parse(value);
    } catch (IllegalArgumentException e) {
      log.error(
          "Keyring: entry \"{}\" in dockercfg invalid ({}), ignoring", location, e.getMessage());
      return null;
    }
    String path = parsed.path();
    if (path.startsWith("/v2/") || path.startsWith("/v1/")) {
      path = path.substring(3);
    }
    return !path.isEmpty() && !path.equals("/") ? parsed.host() + path : parsed.host();
  }

  @Override
  public List<AuthConfig> lookup(String repository) {
    List<AuthConfig> out = new ArrayList<>();
    for (String k : index) {
      if (RegistryUrls.matches(k, repository)) {
        out.addAll(creds.get(k));
      }
    }
    if (out.isEmpty() && isDefaultRegistryMatch(repository)) {
      out.addAll(creds.getOrDefault(DEFAULT_REGISTRY_HOST, List.of()));
    }
    return out;
  }

  /**
   * Whether an image is on Docker Hub: no registry part ({@code foo}, {@code foo/bar}), or {@code
   * docker.io}/{@code index.docker.io}, as upstream's {@code isDefaultRegistryMatch}.
   */
  static boolean isDefaultRegistryMatch(String image) {
    int slash = image.indexOf('/');
    String first = slash < 0 ? image : image.substring(0, slash);
    if (first.isEmpty()) {
      return false;
    }
    if (slash < 0) {
      return true;
    }
    if (first.equals("docker.io") || first.equals(DEFAULT_REGISTRY_HOST)) {
      return true;
    }
    return first.indexOf('.') < 0 && first.indexOf(':') < 0;
  }
}
