package io.jkubelet.agent.eviction;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.gc.ContainerGarbageCollector;
import io.jkubelet.agent.gc.ImageGarbageCollector;
import io.jkubelet.config.EvictionSettings.Signal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Hand-written fakes for the eviction manager's parts; each records its calls. */
final class Fakes {
  private Fakes() {}

  /** Signals whose next readings a test sets. */
  static final class Signals implements Readers.SignalReader {
    final Map<Signal, Observation> now = new EnumMap<>(Signal.class);
    int reads;

    @Override
    public Map<Signal, Observation> read(boolean memoryOnly) {
      reads++;
      Map<Signal, Observation> out = new EnumMap<>(Signal.class);
      now.forEach(
          (s, o) -> {
            if (!memoryOnly || Thresholds.memory(s)) {
              out.put(s, o);
            }
          });
      return out;
    }
  }

  record Killed(Pod pod, PodStatus status, Duration grace) {}

  static final class Killer implements EvictionManager.PodKiller {
    final List<Killed> killed = new ArrayList<>();

    @Override
    public void kill(Pod pod, PodStatus failed, Duration grace) {
      killed.add(new Killed(pod, failed, grace));
    }
  }

  record Event(String involvedKind, String name, EventType type, String reason, String message) {}

  static final class Recorder implements EventRecorder {
    final List<Event> events = new ArrayList<>();

    @Override
    public void event(ObjectReference o, EventType type, String reason, String message) {
      events.add(new Event(o.getKind(), o.getName(), type, reason, message));
    }
  }

  static final class Gc implements ContainerGarbageCollector, ImageGarbageCollector {
    final List<String> calls = new ArrayList<>();
    Runnable onCall = () -> {};

    @Override
    public void deleteAllUnusedContainers() {
      calls.add("containers");
      onCall.run();
    }

    @Override
    public long deleteUnusedImages() {
      calls.add("images");
      onCall.run();
      return 0;
    }
  }

  static final class Listener implements EvictionManager.Listener {
    final List<String> evicted = new ArrayList<>();
    final List<Double> ages = new ArrayList<>();

    @Override
    public void evicted(String signal) {
      evicted.add(signal);
    }

    @Override
    public void statsAge(Signal signal, double seconds) {
      ages.add(seconds);
    }
  }

  /** A pod with one container {@code app} requesting and limiting memory as given ("" for none). */
  static Pod pod(String name, String request, String limit) {
    PodBuilder b =
        TestPods.builder("default", name, "uid-" + name)
            .editSpec()
            .addNewContainer()
            .withName("app")
            .withImage("busybox")
            .withNewResources()
            .endResources()
            .endContainer()
            .endSpec();
    Pod p = b.build();
    Map<String, Quantity> req = new HashMap<>();
    Map<String, Quantity> lim = new HashMap<>();
    if (!request.isEmpty()) {
      req.put("memory", new Quantity(request));
      req.put("cpu", new Quantity("100m"));
    }
    if (!limit.isEmpty()) {
      lim.put("memory", new Quantity(limit));
      lim.put("cpu", new Quantity("100m"));
    }
    p.getSpec().getContainers().get(0).getResources().setRequests(req);
    p.getSpec().getContainers().get(0).getResources().setLimits(lim);
    return p;
  }

  static PodUsage usage(long bytes) {
    return new PodUsage(
        bytes, Map.of("app", bytes), new PodUsage.Disk(bytes / 2, 10, 0, 0, Map.of(), Map.of()), 3);
  }

  static Observation obs(long available, long capacity, Instant t) {
    return new Observation(available, capacity, t);
  }
}
