package io.jkubelet.agent.e2e;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/** Prints the last lines of the jkubelet under test's log when a test fails. */
final class PrintLogOnFailure implements TestWatcher {
  private final Supplier<JkubeletProcess> jkubelet;

  PrintLogOnFailure(Supplier<JkubeletProcess> jkubelet) {
    this.jkubelet = jkubelet;
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    JkubeletProcess p = jkubelet.get();
    String log = p == null ? "" : p.log();
    System.err.println("---- jkubelet log (last 200 lines) ----");
    log.lines().skip(Math.max(0, log.lines().count() - 200)).forEach(System.err::println);
  }
}
