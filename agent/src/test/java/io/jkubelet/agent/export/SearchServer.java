package io.jkubelet.agent.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSearch or Elasticsearch for the e2e tests, started and stopped by the project's
 * scripts ({@code search-up.sh}, {@code search-down.sh}). Which one: {@code JKUBELET_TEST_SEARCH},
 * {@code opensearch:2.11.0} (the default) or {@code elasticsearch:7.17.9}.
 */
final class SearchServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  final String kind;
  final String version;
  final Path state;
  final int port;
  private final HttpClient http = HttpClient.newHttpClient();
  String url;

  SearchServer(Path state) throws IOException {
    String which = System.getenv().getOrDefault("JKUBELET_TEST_SEARCH", "opensearch:2.11.0");
    this.kind = which.substring(0, which.indexOf(':'));
    this.version = which.substring(which.indexOf(':') + 1);
    this.state = state;
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
  }

  private static Path script(String name) {
    return Path.of(System.getProperty("jkubelet.scripts", "../deploy/scripts"), name);
  }

  /** Starts (or starts again) the server; returns once it is healthy. */
  void start() throws IOException, InterruptedException {
    // The URL is the script's only output; what it says on the way (Maven's, on a first run,
    // which may end without a newline) goes to its own file.
    Path out = Files.createTempFile("search-up", ".out");
    Path err = Files.createTempFile("search-up", ".log");
    Process p =
        new ProcessBuilder(
                script("search-up.sh").toString(), kind, version, state.toString(), "" + port)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("search-up.sh failed: " + Files.readString(err));
    }
    url = Files.readString(out).strip();
  }

  /** Stops the server by its PID, keeping its data. */
  void stop() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(script("search-down.sh").toString(), state.toString())
            .inheritIO()
            .start();
    p.waitFor(60, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    stop();
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return call("GET", path, null);
  }

  JsonNode call(String method, String path, String body) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException(method + " " + path + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }

  /** Every document of {@code index*}, id to its count, paged by {@code uid} with search_after. */
  Map<String, Long> counts(String index) throws IOException, InterruptedException {
    call("POST", "/" + index + "-*/_refresh", null);
    Map<String, Long> out = new HashMap<>();
    String after = null;
    while (true) {
      JsonNode hits =
          call(
                  "POST",
                  "/" + index + "-*/_search",
                  "{\"size\":5000,\"_source\":[\"count\"],\"sort\":[{\"uid\":\"asc\"}],"
                      + "\"track_total_hits\":false"
                      + (after == null ? "" : ",\"search_after\":[" + after + "]")
                      + ",\"query\":{\"match_all\":{}}}")
              .path("hits")
              .path("hits");
      if (hits.isEmpty()) {
        return out;
      }
      for (JsonNode h : hits) {
        Long before = out.put(h.get("_id").asText(), h.path("_source").path("count").asLong());
        if (before != null) {
          out.put(h.get("_id").asText() + "#duplicate", before);
        }
      }
      after = hits.get(hits.size() - 1).path("sort").get(0).toString();
    }
  }

  /** Whether the server answers; false while it is stopped. */
  boolean up() {
    try {
      get("/");
      return true;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
