package io.jkubelet.agent.export;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exports to a JSON-lines file: one document version per line (a count bump is a new line with the
 * same {@code uid}), each line one {@code write(2)}, so a kill of the process loses nothing
 * written. At {@code maxBytes} the file is rotated: {@code PATH} becomes {@code PATH.1}, {@code
 * PATH.1} becomes {@code PATH.2}, and so on up to {@code PATH.<keep>}, the oldest being deleted.
 *
 * <p>Thread-safe: {@code this} guards the channel.
 */
public final class JsonLinesExporter implements Exporter {
  private static final Logger log = LoggerFactory.getLogger(JsonLinesExporter.class);

  /** Defaults: 100 MiB per file, 5 rotated files kept. */
  public static final long DEFAULT_MAX_BYTES = 100L << 20;

  public static final int DEFAULT_KEEP = 5;

  private final Path path;
  private final long maxBytes;
  private final int keep;
  private final ExportCounts counts = new ExportCounts();
  private FileChannel out;
  private long size;
  private boolean failing;

  public JsonLinesExporter(Path path, long maxBytes, int keep) {
    this.path = Objects.requireNonNull(path);
    if (maxBytes < 1 || keep < 1) {
      throw new IllegalArgumentException("max bytes and files kept must be positive");
    }
    this.maxBytes = maxBytes;
    this.keep = keep;
  }

  @Override
  public String name() {
    return "file";
  }

  @Override
  public synchronized void start() {
    if (out != null) {
      return;
    }
    try {
      open();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("event export: cannot open " + path, e);
    }
    log.info("event export: JSON lines to {} (rotated at {} bytes, {} kept)", path, maxBytes, keep);
  }

  private void open() throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    out =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    size = out.size();
  }

  @Override
  public synchronized void export(ExportDocument document) {
    if (out == null) {
      count("dropped/not-started");
      return;
    }
    byte[] line = (document.json() + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      if (size > 0 && size + line.length > maxBytes) {
        rotate();
      }
      ByteBuffer buf = ByteBuffer.wrap(line);
      while (buf.hasRemaining()) {
        out.write(buf);
      }
      size += line.length;
      count("written");
      if (failing) {
        failing = false;
        log.info("event export: writing to {} again", path);
      }
    } catch (IOException e) {
      count("dropped/write-error");
      if (!failing) {
        failing = true;
        log.error("event export: cannot write to {}; dropping events: {}", path, e.toString());
      }
    }
  }

  private void rotate() throws IOException {
    out.close();
    Files.deleteIfExists(rotated(keep));
    for (int i = keep - 1; i >= 1; i--) {
      if (Files.exists(rotated(i))) {
        Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.move(path, rotated(1), StandardCopyOption.REPLACE_EXISTING);
    count("rotations");
    open();
  }

  private Path rotated(int i) {
    return path.resolveSibling(path.getFileName() + "." + i);
  }

  @Override
  public synchronized void stop() {
    if (out == null) {
      return;
    }
    try {
      out.force(false);
      out.close();
    } catch (IOException e) {
      log.warn("event export: closing {}: {}", path, e.toString());
    }
    out = null;
  }

  @Override
  public synchronized Health healthy() {
    return out == null ? Health.failing("event export file is not open") : Health.OK;
  }

  @Override
  public Map<String, Long> counts() {
    return counts.snapshot();
  }

  private void count(String key) {
    counts.increment(key);
  }
}
