package io.jkubelet.agent.export;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append end of a {@link Spool}: the segment file being written (the head) and the segments
 * rolled since the last fsync. An append is one {@code write(2)} of a whole line; the fsyncs are
 * left to {@link Unsynced#force}, which the spool runs outside its lock so that appends never wait
 * for the disk.
 *
 * <p>Not thread-safe: the spool's lock guards it. {@link #unsynced} hands the channels to fsync
 * over to the caller, who forces them without the lock.
 */
final class SegmentWriter {
  /** The spool's logger: these lines were the spool's before its writer was split from it. */
  private static final Logger log = LoggerFactory.getLogger(Spool.class);

  private final SegmentFiles files;
  private final List<FileChannel> rolled = new ArrayList<>();
  private FileChannel head;
  private long seq;
  private boolean dirty;

  SegmentWriter(SegmentFiles files) {
    this.files = files;
  }

  /** Opens (creating) segment {@code seq} as the head; its size. */
  long open(long seq) throws IOException {
    head = files.openForAppend(seq);
    long size = head.size();
    this.seq = seq;
    return size;
  }

  /** The head's sequence number. */
  long seq() {
    return seq;
  }

  /** Appends a whole line to the head. */
  void write(byte[] line) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(line);
    while (buf.hasRemaining()) {
      head.write(buf);
    }
    dirty = true;
  }

  /**
   * Puts the head among the rolled segments, to be fsynced and closed by the next {@link
   * Unsynced#force}; {@link #open} the next one after.
   */
  void retireHead() {
    rolled.add(head);
  }

  /** Closes the head, which a compaction is about to rewrite; {@link #open} it again after. */
  void closeHead() throws IOException {
    head.close();
  }

  /**
   * The head if anything was appended since the last call, and the segments rolled since; the
   * caller forces them.
   */
  Unsynced unsynced() {
    FileChannel current = dirty ? head : null;
    dirty = false;
    List<FileChannel> done = List.copyOf(rolled);
    rolled.clear();
    return new Unsynced(files.dir(), current, done);
  }

  /** Fsyncs and closes the rolled segments, then the head. */
  void close() throws IOException {
    for (FileChannel ch : rolled) {
      try (ch) {
        ch.force(false);
      }
    }
    rolled.clear();
    head.force(false);
    head.close();
  }

  /**
   * Segment files to fsync: {@code current}, the head (or null), stays open; the {@code done} ones
   * are closed once forced.
   */
  record Unsynced(Path dir, FileChannel current, List<FileChannel> done) {
    /** Fsyncs them; a failure is logged. */
    void force() {
      for (FileChannel ch : done) {
        try (ch) {
          ch.force(false);
        } catch (IOException e) {
          log.warn("event export: cannot fsync a spool segment in {}: {}", dir, e.toString());
        }
      }
      if (current != null) {
        try {
          current.force(false);
        } catch (ClosedChannelException e) {
          // Rolled or compacted meanwhile: the next sync forces it.
        } catch (IOException e) {
          log.warn("event export: cannot fsync spool {}: {}", dir, e.toString());
        }
      }
    }
  }
}
