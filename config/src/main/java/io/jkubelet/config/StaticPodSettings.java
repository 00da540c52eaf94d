package io.jkubelet.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The static pod sources' settings of upstream's KubeletConfiguration: a manifest directory and a
 * manifest URL, and how often each is read. Checked by {@link ConfigValidator}.
 */
public record StaticPodSettings(
    @Field(
            flag = "--pod-manifest-path",
            label = "DIR",
            doc = "Directory (or single file) of static pod manifests; none: no file source")
        String staticPodPath,
    @Field(
            value = "20s",
            check = Checks.Positive.class,
            doc = "Period of the manifest directory rescan")
        Duration fileCheckFrequency,
    @Field(value = "20s", check = Checks.Positive.class, doc = "Period of the manifest URL poll")
        Duration httpCheckFrequency,
    @Field(
            flag = "--manifest-url",
            check = Checks.HttpUrl.class,
            doc = "A URL serving a Pod or PodList of static pods; none: no URL source")
        String staticPodURL,
    @Field(
            flag = "--manifest-url-header",
            label = "'Name:value',...",
            doc = "HTTP headers for --manifest-url, comma separated, e.g. 'Authorization:Bearer x'")
        Map<String, List<String>> staticPodURLHeader) {

  public static final StaticPodSettings DEFAULTS =
      Settings.defaults(StaticPodSettings.class, false);

  /**
   * Copies {@code staticPodURLHeader} into an unmodifiable map (in its iteration order) of
   * unmodifiable lists.
   *
   * @throws NullPointerException if any reference component, header name or header value is null
   */
  public StaticPodSettings {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    staticPodURLHeader.forEach(
        (name, values) ->
            headers.put(
                Objects.requireNonNull(name, "staticPodURLHeader name"), List.copyOf(values)));
    staticPodURLHeader = Collections.unmodifiableMap(headers);
  }
}
