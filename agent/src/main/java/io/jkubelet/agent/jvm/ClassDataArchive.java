package io.jkubelet.agent.jvm;

import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.util.OwnedScheduler;
import io.jkubelet.agent.util.Schedulers;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the launcher's class-data archive once a daemon has run for a while, so that later starts
 * map the classes a running agent uses instead of parsing and verifying them again (performance.md,
 * "bench-footprint.sh").
 *
 * <p>The launcher ({@code bin/jkubelet}) maps an archive that exists; where there is none, it
 * starts the JVM with {@code -XX:+RecordDynamicDumpInfo} and names the file in {@value #PROPERTY},
 * and this dumps it {@link #AFTER} after the daemon started (the DiagnosticCommand MBean's {@code
 * vmCds dynamic_dump}, what {@code jcmd VM.cds dynamic_dump} runs). The JVM's own {@code
 * -XX:+AutoCreateSharedArchive} writes it as the JVM exits instead, whatever that run loaded: a
 * kubelet.service started before {@code kubeadm init} or {@code join} (upstream's install guide
 * enables it first) exits at once without its configuration, every 10 s, and its first exit wrote
 * an archive of the start-up's classes alone that every later run mapped and none replaced. A run
 * that ends before {@link #AFTER} writes nothing here, and the next one tries again.
 *
 * <p>The dump links every loaded class and then copies them with the JVM stopped: 6.3 s in all on
 * the 2-core test machine during a burst of 30 pods (bench-compare.sh, 30 November), far longer
 * under emulation; once per archive. It goes to a file beside the archive that is then renamed over
 * it: a run that dies while dumping leaves no partial archive, which the JVM would refuse to start
 * with.
 */
public final class ClassDataArchive implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ClassDataArchive.class);

  /** The archive to write: set by the launcher only where there is none yet. */
  public static final String PROPERTY = "jkubelet.cds.archive";

  /** Overrides {@link #AFTER}, as an ISO-8601 duration (e.g. {@code PT5S}). */
  public static final String AFTER_PROPERTY = "jkubelet.cds.archive.after";

  /**
   * How long after the start the archive is written: past the first relist, the pods' first syncs
   * and probes and the node's registration, so that their classes are in it.
   */
  public static final Duration AFTER = Duration.ofMinutes(2);

  /** The JVM's edge: writes a dynamic archive of the classes loaded so far to the file. */
  @FunctionalInterface
  public interface Dumper {
    void dump(Path file) throws Exception;

    /** This JVM's dynamic dump, through the DiagnosticCommand MBean. */
    Dumper JVM =
        file ->
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "vmCds",
                    new Object[] {new String[] {"dynamic_dump", file.toString()}},
                    new String[] {String[].class.getName()});
  }

  /** Where and when. */
  public record Options(Path archive, Duration after) {}

  private final Options options;
  private final Dumper dumper;
  private final AtomicBoolean written = new AtomicBoolean();
  private final OwnedScheduler scheduler;

  public ClassDataArchive(Options options, Dumper dumper, Schedulers schedulers) {
    this.options = options;
    this.dumper = dumper;
    this.scheduler =
        new OwnedScheduler(
            schedulers,
            "class-data-archive",
            "ClassDataArchive has not started",
            s -> s.after(options.after(), this::write));
  }

  /** The archive the launcher asked for; empty when it maps one already, or is not the launcher. */
  public static Optional<ClassDataArchive> fromLauncher(Schedulers schedulers) {
    String file = System.getProperty(PROPERTY, "");
    if (file.isBlank()) {
      return Optional.empty();
    }
    Duration after = AFTER;
    String override = System.getProperty(AFTER_PROPERTY, "");
    if (!override.isBlank()) {
      try {
        after = Duration.parse(override);
      } catch (RuntimeException e) {
        log.warn(
            "-D{}={}: not a duration such as PT30S; using {}", AFTER_PROPERTY, override, AFTER);
      }
    }
    return Optional.of(
        new ClassDataArchive(new Options(Path.of(file), after), Dumper.JVM, schedulers));
  }

  @Override
  public void start() {
    scheduler.start();
  }

  @Override
  public void stop() {
    scheduler.stop();
  }

  @Override
  public Health healthy() {
    return scheduler.healthy();
  }

  /** Whether this run wrote the archive. */
  public boolean written() {
    return written.get();
  }

  void write() {
    Path archive = options.archive();
    Path partial = archive.resolveSibling(archive.getFileName() + ".partial");
    long started = System.nanoTime();
    try {
      Files.deleteIfExists(partial);
      dumper.dump(partial);
      Files.move(
          partial, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      written.set(true);
      log.info(
          "Class-data archive {} written in {} ms; later starts map it",
          archive,
          (System.nanoTime() - started) / 1_000_000);
    } catch (Exception e) {
      log.warn("Class-data archive {} not written: {}", archive, e.toString());
      try {
        Files.deleteIfExists(partial);
      } catch (IOException ignored) {
        // nothing more to do: the next run writes it again
      }
    }
  }
}
