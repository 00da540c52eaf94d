package io.jkubelet.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The static pod sources' fields of upstream's KubeletConfiguration: a manifest directory and a
 * manifest URL, and how often each is read. Ranges and the URL are checked by {@link
 * ConfigValidator}; this record only rejects nulls.
 *
 * @param staticPodPath directory (or single file) of static pod manifests; {@code ""} (the default)
 *     means no file source
 * @param fileCheckFrequency how often {@code staticPodPath} is re-read; default 20s
 * @param httpCheckFrequency how often {@code staticPodURL} is re-fetched; default 20s
 * @param staticPodURL http(s) URL serving static pod manifests; {@code ""} (the default) means no
 *     URL source
 * @param staticPodURLHeader HTTP headers sent when fetching {@code staticPodURL}, name to values;
 *     default empty
 */
public record StaticPodSettings(
    String staticPodPath,
    Duration fileCheckFrequency,
    Duration httpCheckFrequency,
    String staticPodURL,
    Map<String, List<String>> staticPodURLHeader) {

  public static final StaticPodSettings DEFAULTS =
      new StaticPodSettings("", Duration.ofSeconds(20), Duration.ofSeconds(20), "", Map.of());

  /**
   * Copies {@code staticPodURLHeader} into an unmodifiable map (in its iteration order) of
   * unmodifiable lists.
   *
   * @throws NullPointerException if any reference component, header name or header value is null
   */
  public StaticPodSettings {
    Objects.requireNonNull(staticPodPath, "staticPodPath");
    Objects.requireNonNull(fileCheckFrequency, "fileCheckFrequency");
    Objects.requireNonNull(httpCheckFrequency, "httpCheckFrequency");
    Objects.requireNonNull(staticPodURL, "staticPodURL");
    Objects.requireNonNull(staticPodURLHeader, "staticPodURLHeader");
    Map<String, List<String>> headers = new LinkedHashMap<>();
    staticPodURLHeader.forEach(
        (name, values) ->
            headers.put(
                Objects.requireNonNull(name, "staticPodURLHeader name"), List.copyOf(values)));
    staticPodURLHeader = Collections.unmodifiableMap(headers);
  }

  public StaticPodSettings withStaticPodPath(String v) {
    return new StaticPodSettings(
        v, fileCheckFrequency, httpCheckFrequency, staticPodURL, staticPodURLHeader);
  }

  public StaticPodSettings withFileCheckFrequency(Duration v) {
    return new StaticPodSettings(
        staticPodPath, v, httpCheckFrequency, staticPodURL, staticPodURLHeader);
  }

  public StaticPodSettings withHttpCheckFrequency(Duration v) {
    return new StaticPodSettings(
        staticPodPath, fileCheckFrequency, v, staticPodURL, staticPodURLHeader);
  }

  public StaticPodSettings withStaticPodURL(String v) {
    return new StaticPodSettings(
        staticPodPath, fileCheckFrequency, httpCheckFrequency, v, staticPodURLHeader);
  }

  public StaticPodSettings withStaticPodURLHeader(Map<String, List<String>> v) {
    return new StaticPodSettings(
        staticPodPath, fileCheckFrequency, httpCheckFrequency, staticPodURL, v);
  }
}
