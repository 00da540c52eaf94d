package io.jkubelet.agent.runtime.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

  /**
   * For an engine on this host: whether this process may lower its own score to -1, as {@code sh -c
   * 'echo -1 > /proc/self/oom_score_adj'} would tell of a child, asked without one (a child process
   * of the JVM costs a fork and keeps the JDK's process reaper thread a minute). A score already at
   * -1 or below needs no change: allowed, as the shell would say. A score lowered to -1 is put back
   * at once (raising it is always allowed).
   */
  static Supplier<Optional<Boolean>> localProbe(String dockerHost) {
    if (!dockerHost.startsWith("unix://")) {
      return Optional::empty; // a remote engine's host is not this one
    }
    return () -> probeOwnScore(Path.of("/proc/self/oom_score_adj"));
  }

  /** {@link #localProbe}'s check on the score file of this process. */
  static Optional<Boolean> probeOwnScore(Path file) {
    String current;
    try {
      current = Files.readString(file).trim();
      if (Integer.parseInt(current) <= -1) {
        return Optional.of(true);
      }
    } catch (IOException | NumberFormatException e) {
      return Optional.empty(); // no such file here: cannot tell
    }
    try {
      Files.writeString(file, "-1");
    } catch (IOException e) {
      return Optional.of(false); // EACCES: lowering it needs CAP_SYS_RESOURCE, which this lacks
    }
    try {
      Files.writeString(file, current);
    } catch (IOException e) {
      log.warn("DockerRuntime: could not put this process's oom_score_adj back to {}", current);
    }
    return Optional.of(true);
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
