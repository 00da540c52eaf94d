package io.jkubelet.agent.oom;

import io.jkubelet.agent.util.Scheduler;
import io.jkubelet.agent.util.Schedulers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@link OomSource} on this host: the cgroup files, and {@code /dev/kmsg}, opened without blocking
 * ({@link KernelLogFile}) and read to its end every {@link #PERIOD}, and at once before each {@link
 * #takeKills}, so that a container's exit never misses a kill the kernel has already reported. Each
 * record is parsed by {@link KmsgParser}. No thread waits on the log: a blocked read would hold one
 * for the node's life.
 *
 * <p>{@code /dev/kmsg} gives one record per read, and a new reader starts at the oldest record the
 * kernel still keeps: kills from before the start are read too, and matched only to containers that
 * are still there. A reader that falls behind is told so once and goes on from the oldest record
 * left.
 *
 * <p>Thread-safe: {@code reading} guards the file and the parser, and is taken before {@code this},
 * which guards the recent kills and those not yet told; the listener is told on the reader's
 * thread, holding neither; {@code missing} is volatile.
 */
final class HostOomSource implements OomSource {
  private static final Logger log = LoggerFactory.getLogger(HostOomSource.class);

  /** The kills kept for {@link #takeKills}: the newest, across the node's containers. */
  static final int RECENT = 256;

  /** How often the kernel log is read to its end. */
  static final Duration PERIOD = Duration.ofSeconds(1);

  private final CgroupMemory cgroups;
  private final Path kmsg;
  private final Schedulers schedulers;
  private final Object reading = new Object();
  private final KmsgParser parser = new KmsgParser();
  private final byte[] buf = new byte[8192];
  private final Deque<KernelKill> recent = new ArrayDeque<>();
  private final Deque<KernelKill> untold = new ArrayDeque<>();
  private volatile Consumer<KernelKill> listener = k -> {};
  private volatile String missing = "the kernel log is not read yet";
  private KernelLogFile file;
  private Scheduler scheduler;

  HostOomSource(CgroupMemory cgroups, Path kmsg, Schedulers schedulers) {
    this.cgroups = cgroups;
    this.kmsg = kmsg;
    this.schedulers = schedulers;
  }

  @Override
  public void start() {
    synchronized (reading) {
      try {
        file = KernelLogFile.open(kmsg);
      } catch (IOException e) {
        missing = "the kernel log (" + kmsg + ") is not readable: " + e.getMessage();
        log.info("OOM watch: {}; kills are known from the cgroups' counters only", missing);
        return;
      }
      missing = null;
      scheduler = schedulers.create("oom-kmsg");
      scheduler.withFixedDelay(Duration.ZERO, PERIOD, this::tick);
    }
  }

  @Override
  public void stop() {
    Scheduler s;
    synchronized (reading) {
      s = scheduler;
      scheduler = null;
      if (file != null) {
        file.close();
        file = null;
      }
    }
    if (s != null) {
      s.close();
    }
  }

  @Override
  public Health healthy() {
    return Health.OK; // an unreadable kernel log is said in the events, not a failure
  }

  /**
   * The reader's tick: reads the kernel log to its end, then tells the listener of every kill read
   * since the last tick, on this thread, holding no lock. NOTE: the listener is never told under
   * {@code reading}, nor by {@link #takeKills}'s read on its caller's thread: the listener ({@code
   * kuberuntime.OomEvents}) takes pods' locks, and a pod's sync takes kills holding its pod's lock.
   * A listener told under {@code reading} deadlocked the two at a restart (the kernel log's old
   * kills read while a running pod's first sync took its kills), and the agent's stop with them;
   * told by a sync's own read, two pods' syncs could deadlock each other.
   */
  private void tick() {
    drain();
    List<KernelKill> now;
    synchronized (this) {
      now = List.copyOf(untold);
      untold.clear();
    }
    now.forEach(this::tell);
  }

  /**
   * Reads every record waiting in the kernel log and keeps each kill in it, to take and to tell.
   */
  private void drain() {
    synchronized (reading) {
      while (file != null) {
        int n;
        try {
          n = file.read(buf);
        } catch (IOException e) {
          missing = "the kernel log (" + kmsg + ") stopped: " + e.getMessage();
          log.warn("OOM watch: {}", missing);
          file.close();
          file = null;
          return;
        }
        if (n == KernelLogFile.OVERRUN) {
          continue; // records overwritten before they were read: go on from the oldest left
        }
        if (n == KernelLogFile.NONE) {
          return;
        }
        parser.feed(new String(buf, 0, n, StandardCharsets.UTF_8)).ifPresent(this::keep);
      }
    }
  }

  private void keep(KernelKill kill) {
    synchronized (this) {
      recent.addLast(kill);
      while (recent.size() > RECENT) {
        recent.removeFirst();
      }
      untold.addLast(kill);
      while (untold.size() > RECENT) {
        untold.removeFirst();
      }
    }
  }

  /** Logs the kill and tells the listener; called holding no lock. */
  private void tell(KernelKill kill) {
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
  public List<KernelKill> takeKills(String containerId) {
    drain();
    synchronized (this) {
      return take(containerId);
    }
  }

  private List<KernelKill> take(String containerId) {
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
