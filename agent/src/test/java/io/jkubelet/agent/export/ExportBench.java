package io.jkubelet.agent.export;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The export benchmark ({@code deploy/scripts/bench-export.sh}): events/s from the recorder into a
 * live server through the whole pipeline, the heap it takes above the idle JVM's, and events/s of a
 * spool replay (events spooled while the server was unreachable, then sent).
 *
 * <p>Arguments: {@code URL EVENTS [BATCH [IN_FLIGHT]]} (defaults: the exporter's, 500 and 2).
 * Prints one line per figure.
 */
final class ExportBench {
  private static final java.time.Duration FLUSH = ExportOptions.DEFAULT_FLUSH_INTERVAL;

  private ExportBench() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    long n = Long.parseLong(args[1]);
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : ExportOptions.DEFAULT_BATCH_SIZE;
    int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : ExportOptions.DEFAULT_IN_FLIGHT;
    System.out.printf("batches of %d, %d in flight%n", batch, inFlight);
    Path dir = Files.createTempDirectory("jkubelet-bench-export");
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    System.gc();
    long baseline = mem.getHeapMemoryUsage().getUsed();
    AtomicLong peak = new AtomicLong();
    Thread sampler =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (true) {
                    peak.accumulateAndGet(mem.getHeapMemoryUsage().getUsed(), Math::max);
                    LockSupport.parkNanos(20_000_000L);
                  }
                });

    // Warm-up, then the live run.
    try (var warm =
        new ExportStorm(
            url, "bench-warm", dir.resolve("warm"), null, "warm", batch, FLUSH, inFlight)) {
      warm.start();
      warm.flood(Math.min(n, 50_000));
      while (!warm.drained()) {
        LockSupport.parkNanos(10_000_000L);
      }
    }
    System.gc();
    baseline = Math.min(baseline, mem.getHeapMemoryUsage().getUsed());
    peak.set(0);
    try (var live =
        new ExportStorm(
            url, "bench-live", dir.resolve("live"), null, "live", batch, FLUSH, inFlight)) {
      live.start();
      Cpu cpu = Cpu.now(url);
      long t0 = System.nanoTime();
      live.flood(n);
      while (!live.drained()) {
        LockSupport.parkNanos(1_000_000L);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf("live export: %d events in %.2f s = %.0f events/s%n", n, s, n / s);
      cpu.print("live", url, n);
      System.gc();
      long retained = mem.getHeapMemoryUsage().getUsed();
      System.out.printf(
          "heap: %.1f MiB retained above the idle JVM's with the pipeline live (after GC);"
              + " peak %.1f MiB used, garbage included, of a %d MiB maximum%n",
          (retained - baseline) / 1048576.0,
          peak.get() / 1048576.0,
          mem.getHeapMemoryUsage().getMax() >> 20);
      System.out.println("broadcaster drops: " + live.broadcasterDrops());
      System.out.println("exporter counts: " + live.bulk.counts());
    }

    // Replay: spool while nothing answers, then send the spool to the server.
    Path spool = dir.resolve("replay");
    try (var offline =
        new ExportStorm(
            "http://127.0.0.1:1", "bench-replay", spool, null, "replay", batch, FLUSH, inFlight)) {
      offline.start();
      offline.flood(n);
      while (offline.broadcaster.queued("export") > 0) {
        LockSupport.parkNanos(1_000_000L);
      }
    }
    try (var replay =
        new ExportStorm(url, "bench-replay", spool, null, "replay", batch, FLUSH, inFlight)) {
      long pending = -1;
      replay.start();
      Cpu cpu = Cpu.now(url);
      long t0 = System.nanoTime();
      pending = n;
      while (!replay.drained()) {
        LockSupport.parkNanos(1_000_000L);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "spool replay: %d events in %.2f s = %.0f events/s%n", pending, s, pending / s);
      cpu.print("replay", url, n);
    }
    sampler.interrupt();
  }

  /**
   * CPU time of this JVM and of the search server (its {@code _nodes/_local/stats/process}) at a
   * moment: per event, it shows where the time goes whatever else the host runs, and what two idle
   * cores would allow.
   */
  record Cpu(long clientNanos, long serverMillis) {
    static Cpu now(String url) {
      var os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      return new Cpu(os.getProcessCpuTime(), serverCpuMillis(url));
    }

    void print(String phase, String url, long events) {
      Cpu end = now(url);
      double client = (end.clientNanos - clientNanos) / 1e3 / events;
      double server = (end.serverMillis - serverMillis) * 1e3 / events;
      System.out.printf(
          "%s CPU per event: jkubelet %.0f us (events made and recorded included), server %.0f us;"
              + " two idle cores would allow about %.0f events/s%n",
          phase, client, server, 2e6 / (client + server));
    }

    static long serverCpuMillis(String url) {
      try {
        var http = java.net.http.HttpClient.newHttpClient();
        String body =
            http.send(
                    java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(
                                url
                                    + "/_nodes/_local/stats/process"
                                    + "?filter_path=nodes.*.process.cpu.total_in_millis"))
                        .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
        var m = java.util.regex.Pattern.compile("\"total_in_millis\":(\\d+)").matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
      } catch (java.io.IOException e) {
        return 0;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      }
    }
  }
}
