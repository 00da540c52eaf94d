package io.jkubelet.agent.server;

import io.jkubelet.agent.util.Lifecycle.Health;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The named health checks behind {@code /healthz}, shared by the read-only port, the healthz port
 * and the kubelet API: "ok", or each failed check as {@code [-]name failed: why} and {@code healthz
 * check failed}.
 */
public final class Healthz {
  /** The outcome: whether every check passed, and the body to send. */
  public record Report(boolean ok, String body) {}

  private final Map<String, Supplier<Health>> checks;

  /**
   * @param checks named checks, in report order
   */
  public Healthz(Map<String, Supplier<Health>> checks) {
    this.checks = new LinkedHashMap<>(checks);
  }

  /** Runs every check; a check that throws fails with the exception. */
  public Report all() {
    StringBuilder failed = new StringBuilder();
    checks.forEach(
        (name, check) -> {
          Health h = run(check);
          if (!h.ok()) {
            failed.append("[-]").append(name).append(" failed: ").append(h.message()).append('\n');
          }
        });
    return failed.isEmpty()
        ? new Report(true, "ok")
        : new Report(false, failed + "healthz check failed\n");
  }

  /** One check by name ({@code /healthz/syncloop}); empty when no check has that name. */
  public java.util.Optional<Report> one(String name) {
    Supplier<Health> check = checks.get(name);
    if (check == null) {
      return java.util.Optional.empty();
    }
    Health h = run(check);
    return java.util.Optional.of(
        h.ok()
            ? new Report(true, "ok")
            : new Report(false, "internal server error: " + h.message() + "\n"));
  }

  private static Health run(Supplier<Health> check) {
    try {
      return check.get();
    } catch (RuntimeException e) {
      return Health.failing(e.toString());
    }
  }
}
