package io.jkubelet.agent.export;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's ceiling for the export benchmark ({@code deploy/scripts/bench-export.sh}): {@code
 * _bulk} requests of pre-built bodies, documents shaped as the exporter's (same fields, sizes,
 * external versions, count bumps of the same ids), sent by a bare loop with no jkubelet code, with
 * the same batch size and requests in flight, into an index made from the exporter's template.
 *
 * <p>Arguments: {@code URL EVENTS BATCH IN_FLIGHT}. Prints one line.
 */
final class RawBulkBench {
  private static final String[][] STORIES = {
    {"Warning", "BackOff", "Back-off restarting failed container"},
    {"Normal", "Pulled", "Container image already present"},
    {"Warning", "OOMKilling", "Memory cgroup out of memory: Killed process (app)"},
    {"Normal", "Started", "Started container app"},
    {"Normal", "Killing", "Stopping container c3"}
  };

  private RawBulkBench() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    int n = Integer.parseInt(args[1]);
    int batch = Integer.parseInt(args[2]);
    int inFlight = Integer.parseInt(args[3]);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    http.send( // a fresh index each run: new documents, then count bumps, as the exporter's
        HttpRequest.newBuilder(URI.create(url + "/bench-raw-*")).DELETE().build(),
        HttpResponse.BodyHandlers.discarding());
    String template = BulkClient.template("bench-raw");
    http.send(
        HttpRequest.newBuilder(URI.create(url + "/_index_template/bench-raw"))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(template))
            .build(),
        HttpResponse.BodyHandlers.discarding());
    List<byte[]> bodies = bodies(n, batch);
    AtomicInteger next = new AtomicInteger();
    long cpu0 = ExportBench.Cpu.serverCpuMillis(url);
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < inFlight; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i; (i = next.getAndIncrement()) < bodies.size(); ) {
                      try {
                        HttpResponse<String> r =
                            http.send(
                                HttpRequest.newBuilder(
                                        URI.create(url + "/_bulk?filter_path=errors"))
                                    .header("Content-Type", "application/x-ndjson")
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(i)))
                                    .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) {
                          throw new IllegalStateException(r.body());
                        }
                      } catch (Exception e) {
                        throw new IllegalStateException(e);
                      }
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    double s = (System.nanoTime() - t0) / 1e9;
    double server = (ExportBench.Cpu.serverCpuMillis(url) - cpu0) * 1e3 / n;
    System.out.printf(
        "raw _bulk (no jkubelet code, pre-built bodies, batches of %d, %d in flight):"
            + " %d events in %.2f s = %.0f events/s; server CPU per event %.0f us%n",
        batch, inFlight, n, s, n / s, server);
  }

  /** Event i: pod i % 400, story (i / 400) % 5, as ExportStorm's; version = its count so far. */
  static List<byte[]> bodies(int n, int batch) {
    List<byte[]> out = new ArrayList<>();
    int[] counts = new int[2000];
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      int pod = i % 400;
      int story = (i / 400) % 5;
      int key = story * 400 + pod;
      int count = ++counts[key];
      String id =
          UUID.nameUUIDFromBytes(("raw/" + key).getBytes(StandardCharsets.UTF_8)).toString();
      String[] s = STORIES[story];
      b.append("{\"index\":{\"_index\":\"bench-raw-2026.11.23\",\"_id\":\"")
          .append(id)
          .append("\",\"version\":")
          .append(count)
          .append(",\"version_type\":\"external_gte\"}}\n")
          .append("{\"uid\":\"")
          .append(id)
          .append(
              "\",\"@timestamp\":\"2026-11-23T11:25:14Z\",\"namespace\":\"storm\",\"name\":\"raw-")
          .append(pod)
          .append(".18eaa8e77a3c4541\",\"type\":\"")
          .append(s[0])
          .append("\",\"reason\":\"")
          .append(s[1])
          .append("\",\"message\":\"")
          .append(s[2])
          .append("\",\"count\":")
          .append(count)
          .append(",\"firstTimestamp\":\"2026-11-23T11:25:13Z\"")
          .append(
              ",\"lastTimestamp\":\"2026-11-23T11:25:14Z\",\"involvedObject\":{\"kind\":\"Pod\"")
          .append(",\"namespace\":\"storm\",\"name\":\"raw-")
          .append(pod)
          .append("\",\"uid\":\"raw-uid-")
          .append(pod)
          .append("\",\"apiVersion\":\"v1\"},\"source\":{\"component\":\"kubelet\",")
          .append("\"host\":\"storm-node\"},\"reportingComponent\":\"kubelet\",")
          .append("\"reportingInstance\":\"storm-node\"}\n");
      if ((i + 1) % batch == 0 || i == n - 1) {
        out.add(b.toString().getBytes(StandardCharsets.UTF_8));
        b.setLength(0);
      }
    }
    return out;
  }
}
