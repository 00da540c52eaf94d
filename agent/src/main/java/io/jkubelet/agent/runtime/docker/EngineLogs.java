package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.LogEntrySink;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container's output from the engine's log API ({@code GET /containers/{id}/logs}) on a raw
 * engine connection ({@link Hijack#get}), read on one virtual thread per stream: as chunks for
 * {@code /containerLogs} ({@link #read}), or entry by entry with their times for the CRI log files
 * ({@link #follow}). Each entry the engine recorded (json-file: one per line, or per 16 KiB part)
 * comes as one frame, {@code <RFC3339Nano> <content>} with timestamps; a TTY's output is not
 * multiplexed and comes as lines.
 *
 * <p>NOTE: docker-java's streams each take a platform thread and a connection of its pool (50) for
 * as long as they follow; here a followed log costs a parked virtual thread and a socket, so a node
 * with 110 pods and their shippers stays within the agent's thread budget, and followers never
 * starve the pool that stops and execs need.
 */
final class EngineLogs {
  private static final Logger log = LoggerFactory.getLogger(EngineLogs.class);
  private static final int MAX_ENTRY = 1 << 20;

  private final DockerClients clients;
  private final String host;
  private final ContainerInspect containers;

  EngineLogs(DockerClients clients, String host) {
    this.clients = clients;
    this.host = host;
    this.containers = ContainerInspect.of(clients.api());
  }

  /**
   * Entries with their times, from {@code since} on, following until the container stops. Only
   * whether the container has a terminal is read of its inspect, by the streamed {@link
   * ContainerInspect}: the log collector follows every container of the node after a restart, while
   * the JVM is still cold.
   */
  AutoCloseable follow(String containerId, Optional<Instant> since, LogEntrySink sink) {
    String query = "follow=1&timestamps=1" + since.map(EngineLogs::since).orElse("");
    boolean tty;
    try {
      tty = containers.inspect(containerId).config().tty();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    return open(
        containerId,
        tty,
        query,
        true,
        new Frames() {
          @Override
          public void frame(String stream, byte[] payload) {
            entry(stream, payload, sink);
          }

          @Override
          public void end(Throwable error) {
            sink.end(error);
          }
        });
  }

  /** Chunks of output as {@code /containerLogs} asks: tail, since, timestamps, follow. */
  AutoCloseable read(String containerId, LogRequest r, LogSink sink) {
    return read(inspect(containerId), r, sink);
  }

  /** As {@link #read(String, LogRequest, LogSink)}, for a container already inspected. */
  AutoCloseable read(InspectContainerResponse inspected, LogRequest r, LogSink sink) {
    String query =
        "follow="
            + (r.follow() ? 1 : 0)
            + "&timestamps="
            + (r.timestamps() ? 1 : 0)
            + (r.tailLines().isPresent() ? "&tail=" + r.tailLines().getAsLong() : "")
            + r.since().map(EngineLogs::since).orElse("");
    return open(
        inspected.getId(),
        Inspected.tty(inspected.getConfig()),
        query,
        false,
        new Frames() {
          @Override
          public void frame(String stream, byte[] payload) {
            sink.output(payload);
          }

          @Override
          public void idle() {
            sink.flush();
          }

          @Override
          public void end(Throwable error) {
            sink.end(error);
          }
        });
  }

  /** The container, as the engine describes it; a {@code RuntimeError} when it cannot. */
  InspectContainerResponse inspect(String containerId) {
    try {
      return clients.api().inspectContainerCmd(containerId).exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  private AutoCloseable open(
      String containerId, boolean tty, String query, boolean lines, Frames frames) {
    Hijack conn =
        Hijack.get(host, "/containers/" + containerId + "/logs?stdout=1&stderr=1&" + query);
    Reader reader = new Reader(conn, tty, lines, frames);
    Thread.ofVirtual().name("docker-log-stream").start(reader::run);
    return reader;
  }

  private static String since(Instant t) {
    return "&since=" + t.getEpochSecond() + "." + nanos(t);
  }

  /** Where a reader delivers: frames in order, then one end unless it was closed. */
  private interface Frames {
    void frame(String stream, byte[] payload);

    /** The engine has sent nothing more yet. */
    default void idle() {}

    void end(Throwable error);
  }

  /** A payload {@code <RFC3339Nano> <content>} as an entry; one without a time is skipped. */
  private static void entry(String stream, byte[] payload, LogEntrySink sink) {
    int space = 0;
    while (space < payload.length && payload[space] != ' ') {
      space++;
    }
    try {
      Instant time = Instant.parse(new String(payload, 0, space, StandardCharsets.US_ASCII));
      byte[] content =
          space >= payload.length
              ? new byte[0]
              : Arrays.copyOfRange(payload, space + 1, payload.length);
      sink.entry(new LogEntry(time, stream, content));
    } catch (DateTimeParseException e) {
      log.debug("DockerRuntime: a log entry without a timestamp, skipped: {}", e.toString());
    }
  }

  private static String nanos(Instant t) {
    return String.format("%09d", t.getNano());
  }

  private static final class Reader implements AutoCloseable {
    private final Hijack conn;
    private final boolean tty;
    private final boolean lines;
    private final Frames frames;
    private volatile boolean closed;

    /**
     * @param lines whether a TTY's raw output is cut into lines (each an entry with its time), or
     *     passed on as it comes
     */
    Reader(Hijack conn, boolean tty, boolean lines, Frames frames) {
      this.conn = conn;
      this.tty = tty;
      this.lines = lines;
      this.frames = frames;
    }

    void run() {
      Throwable error = null;
      try (InputStream in = new BufferedInputStream(conn.input(), 8 * 1024)) {
        if (tty && lines) {
          readLines(in);
        } else if (tty) {
          readChunks(in);
        } else {
          readFrames(in);
        }
      } catch (IOException | RuntimeException e) {
        error = e;
      } finally {
        conn.close();
      }
      if (!closed) {
        frames.end(error);
      }
    }

    private void readFrames(InputStream in) throws IOException {
      while (!closed) {
        idleUnlessMore(in);
        byte[] header = in.readNBytes(8);
        if (header.length < 8) {
          return;
        }
        int size =
            ((header[4] & 0xff) << 24)
                | ((header[5] & 0xff) << 16)
                | ((header[6] & 0xff) << 8)
                | (header[7] & 0xff);
        if (size < 0 || size > MAX_ENTRY) {
          throw new IOException("docker log frame of " + size + " bytes");
        }
        byte[] payload = in.readNBytes(size);
        if (payload.length < size) {
          return;
        }
        deliver(header[0] == 2 ? LogEntry.STDERR : LogEntry.STDOUT, payload);
      }
    }

    private void readChunks(InputStream in) throws IOException {
      byte[] buf = new byte[32 * 1024];
      int n;
      while (!closed && (n = in.read(buf)) >= 0) {
        deliver(LogEntry.STDOUT, Arrays.copyOf(buf, n));
        idleUnlessMore(in);
      }
    }

    private void readLines(InputStream in) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while (!closed && (b = in.read()) >= 0) {
        line.write(b);
        if (b == '\n' || line.size() >= MAX_ENTRY) {
          deliver(LogEntry.STDOUT, line.toByteArray());
          line.reset();
        }
      }
      if (line.size() > 0 && !closed) {
        deliver(LogEntry.STDOUT, line.toByteArray());
      }
    }

    /** Tells the frames when the next read would wait for the engine. */
    private void idleUnlessMore(InputStream in) throws IOException {
      if (!closed && in.available() == 0) {
        frames.idle();
      }
    }

    private void deliver(String stream, byte[] payload) {
      if (!closed) {
        frames.frame(stream, payload);
      }
    }

    @Override
    public void close() {
      closed = true;
      conn.close();
    }
  }
}
