package io.jkubelet.agent.status;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Why each container last failed to start ({@code CrashLoopBackOff}, {@code ErrImagePull}...), as
 * upstream's {@code ReasonCache}: status generation shows it as the waiting reason until a start
 * succeeds. Thread-safe.
 */
public final class ReasonCache {
  /** A waiting reason and its message. */
  public record Reason(String reason, String message) {}

  private final Map<String, Reason> reasons = new ConcurrentHashMap<>();

  private static String key(String uid, String container) {
    return uid + "/" + container;
  }

  public void add(String uid, String container, String reason, String message) {
    reasons.put(key(uid, container), new Reason(reason, message));
  }

  public void remove(String uid, String container) {
    reasons.remove(key(uid, container));
  }

  public Optional<Reason> get(String uid, String container) {
    return Optional.ofNullable(reasons.get(key(uid, container)));
  }

  /** Forgets every container of the pod. */
  public void forgetPod(String uid) {
    reasons.keySet().removeIf(k -> k.startsWith(uid + "/"));
  }
}
