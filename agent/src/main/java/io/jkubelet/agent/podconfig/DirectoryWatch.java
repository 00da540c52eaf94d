package io.jkubelet.agent.podconfig;

import io.jkubelet.agent.util.LibC;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The kernel's notices of changes in one directory ({@code inotify(7)}), read without blocking:
 * each {@link #poll} takes what is waiting and says what it amounts to. Upstream's file source
 * watches the manifest directory the same way (fsnotify, on inotify).
 *
 * <p>NOTE: not the JDK's {@code WatchService}, which reads inotify on a platform thread of its own
 * for the process's life; here whoever polls (the file source's scheduler, every 100 ms) reads.
 *
 * <p>Not thread-safe: one poller at a time.
 */
final class DirectoryWatch implements AutoCloseable {
  /** What a poll found. */
  enum Seen {
    /** Nothing changed since the last poll. */
    NOTHING,
    /** An entry was created, written, changed, moved or removed (or notices were lost). */
    CHANGE,
    /** The directory itself was removed or moved away; this watch sees nothing more. */
    GONE
  }

  // <sys/inotify.h>
  private static final int IN_MODIFY = 0x2;
  private static final int IN_ATTRIB = 0x4;
  private static final int IN_CLOSE_WRITE = 0x8;
  private static final int IN_MOVED_FROM = 0x40;
  private static final int IN_MOVED_TO = 0x80;
  private static final int IN_CREATE = 0x100;
  private static final int IN_DELETE = 0x200;
  private static final int IN_DELETE_SELF = 0x400;
  private static final int IN_MOVE_SELF = 0x800;
  private static final int IN_IGNORED = 0x8000;
  private static final int IN_ONLYDIR = 0x1000000;
  private static final int MASK =
      IN_MODIFY
          | IN_ATTRIB
          | IN_CLOSE_WRITE
          | IN_MOVED_FROM
          | IN_MOVED_TO
          | IN_CREATE
          | IN_DELETE
          | IN_DELETE_SELF
          | IN_MOVE_SELF
          | IN_ONLYDIR;
  private static final int GONE_MASK = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED;

  /** struct inotify_event: wd, mask, cookie, len, then len bytes of name. */
  private static final int HEADER = 16;

  private final Path dir;
  private final byte[] buf = new byte[4096];
  private int fd;

  private DirectoryWatch(Path dir, int fd) {
    this.dir = dir;
    this.fd = fd;
  }

  /** Watches {@code dir}, which must be a directory. */
  static DirectoryWatch open(Path dir) throws IOException {
    int fd = LibC.inotifyInit(LibC.O_NONBLOCK | LibC.O_CLOEXEC);
    try {
      LibC.inotifyAddWatch(fd, dir.toString(), MASK);
    } catch (IOException e) {
      LibC.close(fd);
      throw e;
    }
    return new DirectoryWatch(dir, fd);
  }

  /** Takes every notice waiting: what they amount to. */
  Seen poll() throws IOException {
    if (fd < 0) {
      throw new IOException("the watch of " + dir + " is closed");
    }
    Seen seen = Seen.NOTHING;
    for (int n; (n = LibC.readAvailable(fd, buf)) > 0; ) {
      ByteBuffer events = ByteBuffer.wrap(buf, 0, n).order(ByteOrder.nativeOrder());
      while (events.remaining() >= HEADER) {
        int mask = events.getInt(events.position() + 4);
        int len = events.getInt(events.position() + 12);
        events.position(Math.min(n, events.position() + HEADER + len));
        seen = (mask & GONE_MASK) != 0 ? Seen.GONE : seen == Seen.GONE ? seen : Seen.CHANGE;
      }
    }
    return seen;
  }

  @Override
  public void close() {
    if (fd >= 0) {
      LibC.close(fd);
      fd = -1;
    }
  }
}
