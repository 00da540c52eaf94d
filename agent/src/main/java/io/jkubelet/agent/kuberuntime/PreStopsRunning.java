package io.jkubelet.agent.kuberuntime;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The preStop hooks running now, each with its pod, container and start: what {@link
 * ContainerKiller} is waiting on before it stops a container. Read by the stuck terminations'
 * reports.
 *
 * <p>Thread-safe: a concurrent map, an entry added before the hook runs and removed after it.
 */
public final class PreStopsRunning {

  /** One preStop hook running since {@code since}. */
  public record Running(String podUid, String container, Instant since) {
    public Running {
      Objects.requireNonNull(podUid, "podUid");
      Objects.requireNonNull(container, "container");
      Objects.requireNonNull(since, "since");
    }
  }

  private final Clock clock;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, Running> running = new ConcurrentHashMap<>();

  public PreStopsRunning(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Records a hook that begins now; {@link #end} with what this returns. */
  public long begin(String podUid, String container) {
    long id = ids.incrementAndGet();
    running.put(id, new Running(podUid, container, clock.instant()));
    return id;
  }

  public void end(long id) {
    running.remove(id);
  }

  /** The hooks of this pod that run now, the oldest first. */
  public List<Running> of(String podUid) {
    if (running.isEmpty()) {
      return List.of();
    }
    List<Running> out = new ArrayList<>();
    for (Running r : running.values()) {
      if (r.podUid().equals(podUid)) {
        out.add(r);
      }
    }
    out.sort(Comparator.comparing(Running::since));
    return out;
  }
}
