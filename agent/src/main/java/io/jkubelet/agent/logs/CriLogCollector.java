package io.jkubelet.agent.logs;

import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.util.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LogCollector}: one {@code log-collector} thread looks at the pod cache once a period,
 * starts a {@link ContainerLogFile} for each container it has not seen, resumes the ones whose
 * stream ended while their container still runs (or broke), and removes the files of containers the
 * runtime no longer has. The streams themselves run on the runtime's threads (virtual ones for
 * Docker), so the platform threads this costs do not grow with the number of containers.
 *
 * <p>Thread-safe: {@link #removePodLogs} runs on the housekeeping thread; the map of files is
 * concurrent, and each file guards itself.
 */
final class CriLogCollector implements LogCollector {
  private static final Logger log = LoggerFactory.getLogger(CriLogCollector.class);

  private final Options options;
  private final Map<String, Tracked> files = new ConcurrentHashMap<>();
  private volatile boolean writing;
  private Scheduler scheduler;

  /** A file, and whether its container has ended and its output is all written. */
  private static final class Tracked {
    final ContainerLogFile file;
    final String podUid;
    volatile boolean complete;

    Tracked(ContainerLogFile file, String podUid) {
      this.file = file;
      this.podUid = podUid;
    }
  }

  CriLogCollector(Options options) {
    this.options = options;
  }

  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    PodLogPaths paths = options.paths();
    try {
      for (Path root : new Path[] {paths.podLogsDir(), paths.containerLogsDir()}) {
        Files.createDirectories(root);
        if (!Files.isWritable(root)) {
          throw new IOException(root + " is not writable");
        }
      }
      writing = true;
    } catch (IOException e) {
      log.error(
          "ContainerLogs: cannot write container log files under {} and {} ({}); the logs stay in"
              + " the runtime only, where /containerLogs reads them",
          paths.podLogsDir(),
          paths.containerLogsDir(),
          e.toString());
      return;
    }
    scheduler = options.time().schedulers().create("log-collector");
    scheduler.withFixedDelay(Duration.ZERO, options.period(), this::tick);
  }

  @Override
  public synchronized void stop() {
    if (scheduler != null) {
      scheduler.close();
      scheduler = null;
    }
    files.values().forEach(t -> t.file.stop());
    files.clear();
  }

  @Override
  public Health healthy() {
    return Health.OK;
  }

  @Override
  public boolean writing() {
    return writing;
  }

  /** One look at the cache. */
  void tick() {
    Set<String> seen = new HashSet<>();
    Set<String> pods = new HashSet<>();
    for (PodStatus pod : options.pods().get()) {
      pods.add(pod.pod().uid());
      for (ContainerStatus c : pod.containers()) {
        seen.add(c.id());
        track(pod, c);
      }
    }
    files.forEach(
        (id, t) -> {
          if (seen.contains(id)) {
            return;
          }
          files.remove(id);
          if (pods.contains(t.podUid)) {
            t.file.remove(); // the runtime removed the container; its pod is still here
          } else {
            t.file.stop(); // the pod's directory goes with the pod
          }
        });
  }

  private void track(PodStatus pod, ContainerStatus c) {
    if (!c.running() && !c.exited()) {
      return; // created, or unknown: no output yet
    }
    Tracked t = files.get(c.id());
    if (t == null) {
      t = new Tracked(file(pod, c), pod.pod().uid());
      files.put(c.id(), t);
      t.file.follow();
      return;
    }
    if (t.complete || !t.file.ended()) {
      return;
    }
    if (c.running() || t.file.failed()) {
      t.file.follow();
    } else {
      t.complete = true; // exited, and its stream ended cleanly after that
    }
  }

  private ContainerLogFile file(PodStatus pod, ContainerStatus c) {
    var ref = pod.pod();
    PodLogPaths paths = options.paths();
    return new ContainerLogFile(
        ref,
        c.id(),
        new RotatingLogWriter(
            paths.containerLog(ref.namespace(), ref.name(), ref.uid(), c.name(), c.restartCount()),
            options.maxSize(),
            options.maxFiles(),
            options.time().clock()),
        paths.link(ref.namespace(), ref.name(), c.name(), c.id()),
        options.runtime());
  }

  @Override
  public void removePodLogs(Predicate<String> inUse) {
    if (!writing) {
      return;
    }
    PodLogPaths paths = options.paths();
    try (Stream<Path> dirs = Files.list(paths.podLogsDir())) {
      for (Path dir : dirs.toList()) {
        String name = dir.getFileName().toString();
        String uid = name.substring(name.lastIndexOf('_') + 1);
        if (name.indexOf('_') < 0 || inUse.test(uid)) {
          continue;
        }
        files.values().stream().filter(t -> t.podUid.equals(uid)).forEach(t -> t.file.stop());
        files.values().removeIf(t -> t.podUid.equals(uid));
        deleteTree(dir);
        log.info("ContainerLogs: removed the log directory of pod {}", uid);
      }
    } catch (IOException e) {
      log.warn("ContainerLogs: cannot clean up {}: {}", paths.podLogsDir(), e.toString());
    }
    removeDanglingLinks(paths);
  }

  /** Links into the pod log root whose file is gone. */
  private static void removeDanglingLinks(PodLogPaths paths) {
    try (Stream<Path> links = Files.list(paths.containerLogsDir())) {
      for (Path link : links.toList()) {
        if (Files.isSymbolicLink(link)
            && Files.readSymbolicLink(link).startsWith(paths.podLogsDir())
            && !Files.exists(link)) {
          Files.deleteIfExists(link);
        }
      }
    } catch (IOException e) {
      log.warn("ContainerLogs: cannot clean up {}: {}", paths.containerLogsDir(), e.toString());
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
