package io.jkubelet.agent.runtime.docker;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this host lets runc set a negative {@code oom_score_adj}. Some hosts (user namespaces,
 * some VMs and sandboxes) refuse it, and runc then fails the start with an opaque "can't get final
 * child's PID from pipe: EOF". Asked once, when the first negative value is wanted, of a probe (for
 * a local engine: whether a root process here may lower its own score, the same kernel check runc
 * meets), and learned from the start of a sandbox or container created with a negative value (a
 * start refused after all falls back as the probe would have). Once refused, every negative value
 * becomes 0.
 *
 * <p>Thread-safe: {@code refused} is set once (null while unknown); {@code pending} is concurrent.
 */
final class NegativeOom {
  private static final Logger log = LoggerFactory.getLogger(NegativeOom.class);

  private final AtomicReference<Boolean> refused = new AtomicReference<>();
  private final Supplier<Optional<Boolean>> probe;
  private final AtomicBoolean probed = new AtomicBoolean();

  /**
   * @param probe whether the host allows a negative value; empty when it cannot tell
   */
  NegativeOom(Supplier<Optional<Boolean>> probe) {
    this.probe = probe;
  }

  /** For an engine on this host: {@code sh -c 'echo -1 > /proc/self/oom_score_adj'}. */
  static Supplier<Optional<Boolean>> localProbe(String dockerHost) {
    if (!dockerHost.startsWith("unix://")) {
      return Optional::empty; // a remote engine's host is not this one
    }
    return () -> {
      try {
        Process p =
            new ProcessBuilder("sh", "-c", "echo -1 > /proc/self/oom_score_adj")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          return Optional.empty();
        }
        return Optional.of(p.exitValue() == 0);
      } catch (IOException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    };
  }

  /** Containers created with a negative value while it was unknown, not yet started. */
  private final Set<String> pending = ConcurrentHashMap.newKeySet();

  /** Whether the host is known to refuse a negative value. */
  boolean refused() {
    return Boolean.TRUE.equals(refused.get());
  }

  /** The value to create a container with: 0 for a negative one the host refuses. */
  int effective(int oomScoreAdj) {
    if (oomScoreAdj >= 0) {
      return oomScoreAdj;
    }
    if (refused.get() == null && probed.compareAndSet(false, true)) {
      probe
          .get()
          .ifPresent(
              allowed -> {
                if (allowed) {
                  refused.compareAndSet(null, false);
                } else {
                  refuse("process of this host (probe)", oomScoreAdj);
                }
              });
    }
    return refused() ? 0 : oomScoreAdj;
  }

  /** A container was created with {@code oomScoreAdj}: its start will tell. */
  void created(String id, int oomScoreAdj) {
    if (oomScoreAdj < 0 && refused.get() == null) {
      pending.add(id);
    }
  }

  /** A container started: a negative value it had is allowed here. */
  void started(String id) {
    if (pending.remove(id)) {
      refused.compareAndSet(null, false);
    }
  }

  /**
   * A container's start failed; returns whether that was the first refusal of a negative value (the
   * caller's next attempt then gets 0).
   */
  boolean failed(String id, int oomScoreAdj) {
    return pending.remove(id) && refuse("container", oomScoreAdj);
  }

  /** A negative value failed a start: from now on it is 0. Returns whether this was the first. */
  boolean refuse(String what, int oomScoreAdj) {
    if (refused.compareAndSet(null, true) || refused.compareAndSet(false, true)) {
      log.warn(
          "DockerRuntime: the runtime refused oom_score_adj={} for a {}; negative values are 0"
              + " from now on",
          oomScoreAdj,
          what);
      return true;
    }
    return false;
  }

  /** A sandbox with a negative value started. */
  void allowed() {
    refused.compareAndSet(null, false);
  }
}
