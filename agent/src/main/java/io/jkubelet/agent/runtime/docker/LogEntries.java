package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.LogEntrySink;
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
 * A container's output entry by entry, for the CRI log files: {@code GET
 * /containers/{id}/logs?follow=1&timestamps=1&since=...} on a raw engine connection ({@link
 * Hijack#get}), read on one virtual thread per stream. Each entry the engine recorded (json-file,
 * one per line or per 16 KiB part) comes as one frame {@code <RFC3339Nano> <content>}; a TTY's
 * output is not multiplexed and comes as timestamped lines.
 *
 * <p>NOTE: docker-java's streams each take a platform thread and a pooled connection for as long as
 * they follow; here a followed container costs a parked virtual thread and a socket, so a node with
 * 110 pods stays within the agent's thread budget.
 */
final class LogEntries {
  private static final Logger log = LoggerFactory.getLogger(LogEntries.class);
  private static final int MAX_ENTRY = 1 << 20;

  private final DockerClients clients;
  private final String host;

  LogEntries(DockerClients clients, String host) {
    this.clients = clients;
    this.host = host;
  }

  AutoCloseable follow(String containerId, Optional<Instant> since, LogEntrySink sink) {
    InspectContainerResponse inspected;
    try {
      inspected = clients.api().inspectContainerCmd(containerId).exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
    boolean tty =
        inspected.getConfig() != null && Boolean.TRUE.equals(inspected.getConfig().getTty());
    String path =
        "/containers/"
            + containerId
            + "/logs?stdout=1&stderr=1&follow=1&timestamps=1"
            + since.map(t -> "&since=" + t.getEpochSecond() + "." + nanos(t)).orElse("");
    Hijack conn = Hijack.get(host, path);
    Reader reader = new Reader(conn, tty, sink);
    Thread.ofVirtual().name("docker-log-entries").start(reader::run);
    return reader;
  }

  private static String nanos(Instant t) {
    return String.format("%09d", t.getNano());
  }

  private static final class Reader implements AutoCloseable {
    private final Hijack conn;
    private final boolean tty;
    private final LogEntrySink sink;
    private volatile boolean closed;

    Reader(Hijack conn, boolean tty, LogEntrySink sink) {
      this.conn = conn;
      this.tty = tty;
      this.sink = sink;
    }

    void run() {
      Throwable error = null;
      try (InputStream in = new BufferedInputStream(conn.input(), 64 * 1024)) {
        if (tty) {
          readLines(in);
        } else {
          readFrames(in);
        }
      } catch (IOException | RuntimeException e) {
        error = e;
      } finally {
        conn.close();
      }
      if (!closed) {
        sink.end(error);
      }
    }

    private void readFrames(InputStream in) throws IOException {
      while (!closed) {
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

    private void deliver(String stream, byte[] payload) {
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
        if (!closed) {
          sink.entry(new LogEntry(time, stream, content));
        }
      } catch (DateTimeParseException e) {
        log.debug("DockerRuntime: a log entry without a timestamp, skipped: {}", e.toString());
      }
    }

    @Override
    public void close() {
      closed = true;
      conn.close();
    }
  }
}
