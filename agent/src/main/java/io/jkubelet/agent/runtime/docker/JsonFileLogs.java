package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import io.jkubelet.agent.runtime.LogRequest;
import io.jkubelet.agent.runtime.LogSink;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container's output for {@code /containerLogs} read straight from the engine's json-file log, as
 * upstream's kubelet reads it with dockershim ({@code kuberuntime/logs.ReadLogs}), instead of
 * through the engine's log API, which delivers a few MB/s. For requests that do not follow, when
 * the container logs with {@code json-file}, its {@code LogPath} can be read here (the engine is
 * local) and opens; otherwise {@link #files} says why (debug) and the caller uses the API.
 *
 * <p>Semantics are the engine's ({@code docker logs}) and upstream's: rotated files first, oldest
 * first; {@code tailLines} counts the files' lines (a line the engine split at 16 KiB counts per
 * part) from the end; {@code since} keeps entries at or after it, applied after the tail; each
 * entry's content as written (a part without its newline), stdout and stderr in file order, with
 * {@code timestamps} prefixed by its time in {@code RFC3339NanoFixed} and a space. A line that is
 * no log entry is skipped, as upstream skips it; a cut last line is what a writer has not finished.
 *
 * <p>Each read runs on its own virtual thread ({@code docker-log-file}) and hands the sink arrays
 * of up to {@link #CHUNK} bytes; the sink's backpressure blocks it. Closing the returned handle
 * stops it before its next read (no {@code end} follows).
 */
final class JsonFileLogs {
  private static final Logger log = LoggerFactory.getLogger(JsonFileLogs.class);

  /** The size of the arrays handed to the sink. */
  static final int CHUNK = 256 * 1024;

  private static final int READ = 256 * 1024;
  private static final int MIN_BUFFER = 4 * 1024;
  private static final int MAX_LINE = 64 << 20;

  private final boolean local;

  /** {@code host}: the engine's address; only a {@code unix://} socket's files are local. */
  JsonFileLogs(String host) {
    this.local = host.startsWith("unix://");
  }

  /** The container's json-file log, open; empty (with a debug line saying why) if not usable. */
  Optional<JsonLogFiles> files(InspectContainerResponse c) {
    String id = c.getId();
    if (!local) {
      log.debug("DockerRuntime logs of {}: the engine is not local, read through its API", id);
      return Optional.empty();
    }
    HostConfig host = c.getHostConfig();
    LogConfig config = host == null ? null : host.getLogConfig();
    String driver = config == null || config.getType() == null ? null : config.getType().getType();
    if (!"json-file".equals(driver)) {
      log.debug("DockerRuntime logs of {}: log driver {}, read through the API", id, driver);
      return Optional.empty();
    }
    String path = c.getLogPath();
    if (path == null || path.isEmpty()) {
      log.debug("DockerRuntime logs of {}: no log path, read through the API", id);
      return Optional.empty();
    }
    try {
      return Optional.of(JsonLogFiles.open(Path.of(path), maxFiles(config)));
    } catch (IOException | RuntimeException e) {
      log.debug("DockerRuntime logs of {}: cannot open {} ({}), read through the API", id, path, e);
      return Optional.empty();
    }
  }

  private static int maxFiles(LogConfig config) {
    String v = config.getConfig() == null ? null : config.getConfig().get("max-file");
    try {
      return v == null ? 1 : Math.max(1, Integer.parseInt(v.trim()));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** Reads the files as {@code request} asks (which must not follow); closes them when done. */
  AutoCloseable read(JsonLogFiles files, LogRequest request, LogSink sink) {
    if (request.follow()) {
      throw new IllegalArgumentException("a json-file log is read without follow");
    }
    Reader reader = new Reader(files, request, sink);
    Thread.ofVirtual().name("docker-log-file").start(reader::run);
    return reader;
  }

  /** One read: lines in, chunks of output out. */
  static final class Reader implements AutoCloseable {
    private final JsonLogFiles files;
    private final LogSink sink;
    private final long tail;
    private final boolean timestamps;
    private final boolean hasSince;
    private final long sinceSeconds;
    private final int sinceNanos;
    private final JsonLogLine decoder = new JsonLogLine();
    // Sized in run() for what there is to read, grown as lines need, dropped at the end: a
    // finished reader may stay referenced for as long as its client's connection lives.
    private byte[] in;
    private byte[] out;
    private int pos;
    private long skipped;
    private volatile boolean closed;

    Reader(JsonLogFiles files, LogRequest request, LogSink sink) {
      this.files = files;
      this.sink = sink;
      this.tail = request.tailLines().orElse(-1);
      this.timestamps = request.timestamps();
      Instant since = request.since().orElse(null);
      this.hasSince = since != null;
      this.sinceSeconds = since == null ? 0 : since.getEpochSecond();
      this.sinceNanos = since == null ? 0 : since.getNano();
    }

    void run() {
      Throwable error = null;
      try (files) {
        List<JsonLogFiles.Part> parts = files.parts();
        JsonLogFiles.Position start = files.tail(tail);
        int size = (int) Math.clamp(files.bytesFrom(start, READ), MIN_BUFFER, READ);
        in = new byte[size];
        out = new byte[Math.min(CHUNK, size * 2)];
        for (int i = start.part(); i < parts.size() && !closed; i++) {
          JsonLogFiles.Part part = parts.get(i);
          try (InputStream stream = part.open(i == start.part() ? start.offset() : 0)) {
            readLines(stream, part.path());
          }
        }
        emit();
      } catch (IOException | RuntimeException e) {
        error = e;
      } finally {
        in = null;
        out = null;
      }
      if (skipped > 0) {
        log.warn("DockerRuntime logs: {} lines are no json-file log entries, skipped", skipped);
      }
      if (!closed) {
        sink.end(error);
      }
    }

    private void readLines(InputStream stream, Path path) throws IOException {
      int len = 0;
      int n;
      while (!closed && (n = stream.read(in, len, in.length - len)) >= 0) {
        len += n;
        int from = lines(len);
        if (from > 0) {
          System.arraycopy(in, from, in, 0, len - from);
          len -= from;
        } else if (len == in.length) {
          if (in.length >= MAX_LINE) {
            throw new IOException("a line of over " + MAX_LINE + " bytes in " + path);
          }
          in = Arrays.copyOf(in, in.length * 2);
        }
      }
      if (len > 0 && !closed && line(0, len) < 0) {
        skipped--; // an unfinished last line, not a bad one
        log.debug("DockerRuntime logs: {} ends in an unfinished line, skipped", path);
      }
    }

    /** Decodes the lines that {@code in[0, len)} holds whole; returns where the rest starts. */
    private int lines(int len) {
      int reserve = timestamps ? LogTime.STAMP_LENGTH : 0;
      int from = 0;
      while (from < len && !closed) {
        if (out.length - pos < reserve + 64) {
          emit();
        }
        int end = decoder.scan(in, from, len, out, pos + reserve);
        if (end >= 0) {
          accept(end);
          from = decoder.next;
        } else if (end == JsonLogLine.MORE) {
          return from;
        } else if (end == JsonLogLine.ROOM) {
          if (pos > 0) {
            emit();
          } else {
            out = new byte[out.length * 2];
          }
        } else {
          int nl = from;
          while (nl < len && in[nl] != '\n') {
            nl++;
          }
          if (nl == len) {
            return from;
          }
          line(from, nl);
          from = nl + 1;
        }
      }
      return from;
    }

    /** Decodes the whole line {@code in[from, to)}; -1 when it is no entry. */
    private int line(int from, int to) {
      int reserve = timestamps ? LogTime.STAMP_LENGTH : 0;
      int need = reserve + (to - from) * JsonLogLine.MAX_EXPANSION;
      if (pos + need > out.length) {
        emit();
        if (need > out.length) {
          out = new byte[need];
        }
      }
      int end = decoder.decode(in, from, to, out, pos + reserve);
      if (end < 0) {
        skipped++;
        return -1;
      }
      accept(end);
      return end;
    }

    /** Keeps the decoded entry ending at {@code end} unless it is before {@code since}. */
    private void accept(int end) {
      if (hasSince
          && (decoder.time.seconds < sinceSeconds
              || (decoder.time.seconds == sinceSeconds && decoder.time.nanos < sinceNanos))) {
        return;
      }
      if (timestamps) {
        decoder.time.writeStamp(out, pos);
      }
      pos = end;
    }

    private void emit() {
      if (pos > 0 && !closed) {
        sink.output(Arrays.copyOf(out, pos));
      }
      pos = 0;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
