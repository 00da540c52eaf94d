package io.jkubelet.agent.oom;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link OomSource} on this host: the cgroup files, and {@code /dev/kmsg} read by one thread,
 * {@code oom-kmsg}, that blocks on it and parses each record ({@link KmsgParser}).
 *
 * <p>{@code /dev/kmsg} gives one record per read, and a new reader starts at the oldest record the
 * kernel still keeps: kills from before the start are read too, and matched only to containers that
 * are still there. A reader that falls behind gets {@code EPIPE} once and goes on from the oldest
 * record left. Closing the channel at {@link #stop()} wakes the blocked read.
 *
 * <p>Thread-safe: the recent kills are guarded by {@code this}; {@code missing} and {@code channel}
 * are volatile.
 */
final class HostOomSource implements OomSource {
  private static final Logger log = LoggerFactory.getLogger(HostOomSource.class);

  /** The kills kept for {@link #takeKills}: the newest, across the node's containers. */
  static final int RECENT = 256;

  private final CgroupMemory cgroups;
  private final Path kmsg;
  private final Deque<KernelKill> recent = new ArrayDeque<>();
  private volatile Consumer<KernelKill> listener = k -> {};
  private volatile String missing = "the kernel log is not read yet";
  private volatile FileChannel channel;
  private Thread reader;

  HostOomSource(CgroupMemory cgroups, Path kmsg) {
    this.cgroups = cgroups;
    this.kmsg = kmsg;
  }

  @Override
  public void start() {
    try {
      channel = FileChannel.open(kmsg, StandardOpenOption.READ);
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      missing = "the kernel log (" + kmsg + ") is not readable: " + e;
      log.info("OOM watch: {}; kills are known from the cgroups' counters only", missing);
      return;
    }
    missing = null;
    FileChannel c = channel;
    reader = Thread.ofPlatform().name("oom-kmsg").daemon().start(() -> read(c));
  }

  @Override
  public void stop() {
    FileChannel c = channel;
    channel = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        log.debug("OOM watch: closing the kernel log: {}", e.toString());
      }
    }
    Thread t = reader;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public Health healthy() {
    return Health.OK; // an unreadable kernel log is said in the events, not a failure
  }

  private void read(FileChannel c) {
    KmsgParser parser = new KmsgParser();
    ByteBuffer buf = ByteBuffer.allocate(8192);
    while (c.isOpen()) {
      buf.clear();
      int n;
      try {
        n = c.read(buf);
      } catch (ClosedChannelException e) {
        return; // stopped
      } catch (IOException e) {
        if (String.valueOf(e.getMessage()).contains("Broken pipe")) {
          continue; // records overwritten before they were read: go on from the oldest left
        }
        missing = "the kernel log (" + kmsg + ") stopped: " + e;
        log.warn("OOM watch: {}", missing);
        return;
      }
      if (n < 0) {
        missing = "the kernel log (" + kmsg + ") ended";
        return;
      }
      parser.feed(new String(buf.array(), 0, n, StandardCharsets.UTF_8)).ifPresent(this::add);
    }
  }

  /** A kill read from the kernel log; also the tests' way in. */
  void add(KernelKill kill) {
    synchronized (this) {
      recent.addLast(kill);
      while (recent.size() > RECENT) {
        recent.removeFirst();
      }
    }
    // At debug: a start reads the kills of the whole kernel log again, most of them old.
    log.debug(
        "OOM watch: the kernel killed process {} ({}) in cgroup {}",
        kill.pid(),
        kill.command(),
        kill.taskMemcg());
    try {
      listener.accept(kill);
    } catch (RuntimeException e) {
      log.warn("OOM watch: a listener failed on a kill: {}", e.toString());
    }
  }

  @Override
  public Optional<MemoryCounters> counters(String podUid, String containerId) {
    return cgroups.read(podUid, containerId);
  }

  @Override
  public synchronized List<KernelKill> takeKills(String containerId) {
    List<KernelKill> out = new ArrayList<>();
    for (Iterator<KernelKill> it = recent.iterator(); it.hasNext(); ) {
      KernelKill k = it.next();
      if (k.inContainer(containerId)) {
        out.add(k);
        it.remove();
      }
    }
    return out;
  }

  @Override
  public Optional<String> kernelLogMissing() {
    return Optional.ofNullable(missing);
  }

  @Override
  public void onKill(Consumer<KernelKill> listener) {
    this.listener = listener;
  }

  @Override
  public String toString() {
    return "oom watch";
  }
}
