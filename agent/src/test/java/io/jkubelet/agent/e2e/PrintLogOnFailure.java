package io.jkubelet.agent.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * When a test fails: prints the last lines of the jkubelet under test's log, and keeps the whole
 * log in {@code target/it-logs/<class>.<method>.log}, where a failure in a long run can be read
 * afterwards. While the test's jkubelet still runs (before {@code @AfterEach} stops it), its
 * threads, virtual ones included, are dumped beside the log as {@code <class>.<method>.threads}: a
 * wait that never ends shows there what jkubelet was waiting on.
 */
final class PrintLogOnFailure implements TestWatcher, TestExecutionExceptionHandler {
  static final Path KEPT = Path.of("target", "it-logs");

  private final Supplier<JkubeletProcess> jkubelet;

  PrintLogOnFailure(Supplier<JkubeletProcess> jkubelet) {
    this.jkubelet = jkubelet;
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable cause)
      throws Throwable {
    JkubeletProcess p = jkubelet.get();
    if (p != null && p.alive()) {
      Path dump = kept(context, ".threads").toAbsolutePath();
      try {
        Files.createDirectories(KEPT);
        p.dumpThreads(dump);
        System.err.println("---- jkubelet's threads at the failure: " + dump + " ----");
      } catch (IOException | RuntimeException e) {
        System.err.println("---- jkubelet's threads could not be dumped: " + e + " ----");
      }
    }
    throw cause;
  }

  private static Path kept(ExtensionContext context, String suffix) {
    return KEPT.resolve(
        context.getRequiredTestClass().getSimpleName()
            + "."
            + context.getTestMethod().map(m -> m.getName()).orElse("all")
            + suffix);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    JkubeletProcess p = jkubelet.get();
    String log = p == null ? "" : p.log();
    Path kept = kept(context, ".log");
    try {
      Files.createDirectories(KEPT);
      Files.writeString(kept, log);
    } catch (IOException e) {
      kept = null;
    }
    System.err.println(
        "---- jkubelet log (last 200 lines"
            + (kept == null ? "" : "; all of it in " + kept.toAbsolutePath())
            + ") ----");
    log.lines().skip(Math.max(0, log.lines().count() - 200)).forEach(System.err::println);
  }
}
