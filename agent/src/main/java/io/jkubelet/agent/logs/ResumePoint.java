package io.jkubelet.agent.logs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where a container's CRI log file left off: the time of its last line and how many lines at the
 * end carry exactly that time. Following the runtime again from that time (inclusive) and skipping
 * that many entries of that time gives neither a duplicate nor a gap, even when one time stamps
 * several entries.
 *
 * @param time the last line's time
 * @param linesAtTime how many of the last lines have that time (at least 1)
 */
record ResumePoint(Instant time, int linesAtTime) {
  /** How much of a file's end is read: enough for a run of maximal (16 KiB) Docker entries. */
  static final int TAIL_BYTES = 256 * 1024;

  /**
   * Reads the resume point of a live log file, or of its newest plain rotated file when the live
   * one is missing or empty (it was just rotated); empty when nothing was written yet.
   */
  static Optional<ResumePoint> of(Path live) throws IOException {
    Optional<ResumePoint> p = ofFile(live);
    if (p.isPresent()) {
      return p;
    }
    List<Path> rotated = RotatingLogWriter.rotated(live);
    for (int i = rotated.size() - 1; i >= 0; i--) {
      Path r = rotated.get(i);
      if (!r.toString().endsWith(".gz") && !r.toString().endsWith(".tmp")) {
        return ofFile(r);
      }
    }
    return Optional.empty();
  }

  private static Optional<ResumePoint> ofFile(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    byte[] tail;
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long from = Math.max(0, f.length() - TAIL_BYTES);
      tail = new byte[(int) (f.length() - from)];
      f.seek(from);
      f.readFully(tail);
    }
    String text = new String(tail, StandardCharsets.UTF_8);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return Optional.empty();
    }
    String[] lines = text.substring(0, end).split("\n", -1);
    Instant last = null;
    int count = 0;
    for (int i = lines.length - 1; i >= 0; i--) {
      Optional<CriFormat.Line> line = CriFormat.parse(lines[i]);
      if (line.isEmpty()) {
        break; // the cut-off first line, or a foreign one
      }
      if (last == null) {
        last = line.get().time();
      } else if (!line.get().time().equals(last)) {
        break;
      }
      count++;
    }
    return last == null ? Optional.empty() : Optional.of(new ResumePoint(last, count));
  }
}
