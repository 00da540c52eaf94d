package io.jkubelet.agent.podconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.Scheduler;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A manifest URL ({@code --manifest-url}), polled every {@code period} with a 10 s timeout and the
 * given headers, as upstream's HTTP source. The body is one Pod or a PodList (YAML or JSON); its
 * pods are static pods, defaulted with the URL as their source.
 *
 * <p>A non-200 answer means an empty set, as upstream: the URL's pods are removed, and the status
 * is logged. A body that cannot be read keeps the last good set, so a broken upload never kills
 * running pods; an unreachable server keeps it too (it is an outage, not an answer).
 *
 * <p>Polls run one at a time on a {@link Scheduler} from the injected {@code Schedulers}.
 */
public final class HttpSource implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(HttpSource.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final URI url;
  private final Map<String, List<String>> headers;
  private final SourceOptions options;
  private final ManifestParser parser;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(TIMEOUT)
          .followRedirects(HttpClient.Redirect.NORMAL)
          .build();
  private final AtomicReference<Instant> lastSuccess = new AtomicReference<>();
  private final AtomicReference<String> lastError = new AtomicReference<>("not polled yet");
  private List<Pod> lastGood = List.of();
  private boolean sentOnce;
  private Scheduler scheduler;

  HttpSource(URI url, Map<String, List<String>> headers, SourceOptions options) {
    this.url = url;
    this.headers = headers;
    this.options = options;
    this.parser = new ManifestParser(options.nodeName());
  }

  @Override
  public void start() {
    scheduler = options.everyPeriod("http-source", this::pollSafely);
  }

  @Override
  public void stop() {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @Override
  public Health healthy() {
    return lastSuccess.get() != null
        ? Health.OK
        : Health.failing("HTTP source: " + lastError.get());
  }

  private void pollSafely() {
    try {
      poll();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("HTTP source: polling {} failed", url, e);
    }
  }

  /** Polls once and sends the result. Tests call this directly. */
  public void poll() throws InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(url).timeout(TIMEOUT).GET();
    headers.forEach((k, vs) -> vs.forEach(v -> req.header(k, v)));
    HttpResponse<String> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      lastError.set("cannot reach " + url + ": " + e);
      log.warn(
          "HTTP source: cannot reach {} ({}); keeping its {} pods",
          url,
          e.toString(),
          lastGood.size());
      if (!sentOnce) {
        sendSet(lastGood); // lets the other sources' housekeeping start; it is empty here
      }
      return;
    }
    if (resp.statusCode() != 200) {
      lastError.set(url + " answered " + resp.statusCode());
      log.warn("HTTP source: {} answered {}; it now defines no pods", url, resp.statusCode());
      lastGood = List.of();
      sendSet(lastGood);
      lastSuccess.set(options.clock().instant());
      return;
    }
    List<Pod> pods = parse(resp.body());
    if (pods == null) {
      if (!sentOnce) {
        sendSet(lastGood);
      }
      return;
    }
    lastGood = pods;
    lastSuccess.set(options.clock().instant());
    sendSet(pods);
  }

  private void sendSet(List<Pod> pods) {
    sentOnce = true;
    options.sink().accept(pods);
  }

  /** The pods of a Pod or PodList body, or null (logged) when the body cannot be used. */
  private List<Pod> parse(String body) {
    JsonNode node;
    try {
      node = YAML.readTree(body);
    } catch (IOException e) {
      lastError.set("malformed body: " + e.getMessage());
      log.error(
          "HTTP source: {} sent a malformed body ({}); keeping its last valid pods",
          url,
          e.getMessage());
      return null;
    }
    if (node == null || !node.isObject()) {
      lastError.set("empty body");
      log.error("HTTP source: {} sent no object; keeping its last valid pods", url);
      return null;
    }
    List<JsonNode> items = new ArrayList<>();
    String kind = node.path("kind").asText("");
    if ("PodList".equals(kind)) {
      node.path("items").forEach(items::add);
    } else if ("Pod".equals(kind)) {
      items.add(node);
    } else {
      lastError.set("kind " + kind);
      log.error(
          "HTTP source: {} sent kind \"{}\", expected Pod or PodList; keeping its last valid pods",
          url,
          kind);
      return null;
    }
    List<Pod> pods = new ArrayList<>();
    for (JsonNode item : items) {
      if (!item.has("kind")) {
        ((com.fasterxml.jackson.databind.node.ObjectNode) item).put("kind", "Pod");
      }
      switch (parser.parse(item.toString(), url.toString(), Source.HTTP)) {
        case ManifestParser.Parsed p -> pods.add(p.pod());
        case ManifestParser.Invalid inv ->
            log.error("HTTP source: ignoring a pod from {}: {}", url, inv.message());
      }
    }
    return pods;
  }
}
