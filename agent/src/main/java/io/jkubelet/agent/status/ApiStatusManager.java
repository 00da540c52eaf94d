package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.util.TokenBucket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Keeps the latest status of every pod and writes it to the API server, as upstream's {@code
 * status.Manager} ({@code pkg/kubelet/status/status_manager.go}).
 *
 * <p>{@link #setPodStatus} only records: it never blocks on the API server and never throws because
 * of it. A status that differs from the last one written (differences in {@code lastProbeTime}
 * aside) marks the pod dirty and wakes the one sync thread, which writes it at once; several
 * changes in a row coalesce, and only the latest is sent. Every {@code syncPeriod} the thread
 * re-checks every pod: it GETs the API object, and writes again when the API's status differs from
 * ours (someone else changed it, or an earlier write was lost).
 *
 * <p>The API object of a regular pod ({@code config.source=api}) is the pod itself. The API object
 * of a static pod is its mirror pod, which has the same namespace and name and a UID of its own;
 * until a mirror exists, the static pod's status waits. Each write is a JSON merge patch of {@code
 * pods/<name>/status} carrying the API object's UID as a precondition (see {@link StatusPatches}).
 *
 * <p>When a regular pod's API object has a deletionTimestamp and {@code canBeDeleted} accepts it,
 * the pod is deleted with grace period 0 and a UID precondition, so {@code kubectl delete} returns
 * and nothing stays Terminating. Mirror pods are never deleted here.
 *
 * <p>Failures: a 404 means the pod is gone, and it is forgotten quietly (a static pod just waits
 * for its mirror). A 409 conflict is logged at INFO, anything else at WARN, and both are retried
 * with a per-pod backoff of 1 s doubling up to {@code syncPeriod}. The thread survives any
 * exception, so while the API server is down statuses keep accumulating in memory and converge when
 * it returns. Every request spends a token of the rate budget.
 *
 * <p>NOTE: fabric8 retries failed requests on its own ({@code requestRetryBackoffLimit}, 10 by
 * default, with exponential backoff), which can stall the sync thread for minutes while the API
 * server is down; build the client with a small limit, since this class retries by itself.
 *
 * <p>Thread-safe. {@code lock} guards {@code entries}, {@code dirty}, {@code stopping} and {@code
 * nextFullSync}; API calls are made without it. The client is owned: {@link #stop()} closes it.
 */
public final class ApiStatusManager implements StatusManager {
  private static final Logger log = LoggerFactory.getLogger(ApiStatusManager.class);
  static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  private static final int WARN_EVERY = 10;
  private static final String THREAD_NAME = "status-manager";

  /**
   * Counters since start, for logs and tests.
   *
   * @param writes status patches that succeeded
   * @param skips syncs that wrote nothing: the API had our status, a static pod has no mirror yet,
   *     or the API's terminal phase was kept
   * @param conflicts requests answered 409, retried
   * @param failures other failed requests (including an unreachable server), retried
   * @param deletes pods deleted from the API server
   * @param forgotten pods that are gone from the API server (deleted, or replaced by a new pod of
   *     the same name), never written again
   * @param syncs periodic re-checks of all pods
   * @param pending pods with a status to write now
   */
  public record Stats(
      long writes,
      long skips,
      long conflicts,
      long failures,
      long deletes,
      long forgotten,
      long syncs,
      int pending) {}

  /** How syncing one pod ended. */
  private enum Outcome {
    /** The status was patched. */
    WRITTEN,
    /** The API already had our status. */
    IN_SYNC,
    /** The API object is gone or was replaced: never write this pod again. */
    GONE,
    /** The pod was deleted from the API server. */
    DELETED,
    /** A static pod without a mirror pod yet: try again later. */
    NO_MIRROR,
    /** The API has a terminal phase and ours is not: we never move it back. */
    KEPT_TERMINAL,
    /** A request failed: try again later. */
    RETRY
  }

  /** One pod's state; guarded by {@code lock}. */
  private static final class Entry {
    Pod pod;
    PodStatus status;
    Map<String, Object> semantic;

    /** What the API was last seen to hold for this pod (written or confirmed), or null. */
    Map<String, Object> written;

    boolean gone;
    boolean deleteRequested;
    Instant retryAt;
    Duration retryDelay;
    int failuresInRow;
    boolean keptTerminal;
  }

  /**
   * What one sync works on, copied under the lock.
   *
   * @param attempt 1, or one more than the failed attempts in a row before it
   * @param nextRetry when this attempt fails, the delay before the next
   * @param keptTerminal whether an earlier sync already kept the API's terminal phase (and said so)
   */
  private record Snapshot(
      String uid,
      Pod pod,
      PodStatus status,
      Map<String, Object> semantic,
      int attempt,
      Duration nextRetry,
      boolean keptTerminal) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final TokenBucket budget;
  private final Predicate<Pod> canBeDeleted;
  private final Duration syncPeriod;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Map<String, Entry> entries = new HashMap<>();
  private final Set<String> dirty = new LinkedHashSet<>();
  private boolean stopping;
  private Instant nextFullSync;

  private volatile Thread thread;
  private volatile Throwable died;

  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong skips = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong forgotten = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();

  /**
   * @param client a client of its own, owned from now on, built with few or no request retries
   * @param qps the rate budget's refill, in requests per second
   * @param burst the rate budget's size
   * @param canBeDeleted whether a pod that is being deleted (it receives the API object, which has
   *     a deletionTimestamp) is finished on this node: stopped, and everything of it removed
   * @param syncPeriod how often every pod is re-checked against the API (upstream: 10 s)
   */
  public ApiStatusManager(
      KubernetesClient client,
      Clock clock,
      int qps,
      int burst,
      Predicate<Pod> canBeDeleted,
      Duration syncPeriod) {
    if (syncPeriod.isNegative() || syncPeriod.isZero()) {
      throw new IllegalArgumentException("the sync period must be positive, got " + syncPeriod);
    }
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.budget = new TokenBucket(clock, qps, burst);
    this.canBeDeleted = Objects.requireNonNull(canBeDeleted, "canBeDeleted");
    this.syncPeriod = syncPeriod;
  }

  @Override
  public void start() {
    lock.lock();
    try {
      if (thread != null) {
        return;
      }
      if (stopping) {
        throw new IllegalStateException("StatusManager: cannot start again after stop");
      }
      nextFullSync = clock.instant().plus(syncPeriod);
      Thread t =
          Thread.ofPlatform()
              .name(THREAD_NAME)
              .daemon(true)
              .uncaughtExceptionHandler(
                  (th, e) -> {
                    died = e;
                    log.error("StatusManager: the sync thread died", e);
                  })
              .unstarted(this::run);
      thread = t;
      t.start();
    } finally {
      lock.unlock();
    }
    log.info(
        "StatusManager: writing pod statuses to {} (re-check every {}s)",
        client.getMasterUrl(),
        syncPeriod.toSeconds());
  }

  @Override
  public void stop() {
    Thread t;
    lock.lock();
    try {
      if (stopping) {
        return;
      }
      stopping = true;
      wake.signalAll();
      t = thread;
    } finally {
      lock.unlock();
    }
    if (t != null) {
      try {
        t.join(2000);
        if (t.isAlive()) {
          t.interrupt(); // blocked in a request
          t.join(2000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    client.close();
    Stats s = stats();
    log.info(
        "StatusManager: stopped after {} writes, {} skips, {} conflicts, {} failures, {} deletes",
        s.writes(),
        s.skips(),
        s.conflicts(),
        s.failures(),
        s.deletes());
  }

  @Override
  public Health healthy() {
    Thread t = thread;
    if (t == null) {
      return Health.failing("StatusManager has not started");
    }
    Throwable d = died;
    if (d != null || !t.isAlive()) {
      lock.lock();
      try {
        if (stopping) {
          return Health.failing("StatusManager is stopped");
        }
      } finally {
        lock.unlock();
      }
      return Health.failing("StatusManager: the sync thread died" + (d == null ? "" : ": " + d));
    }
    return Health.OK;
  }

  public Stats stats() {
    int pending;
    lock.lock();
    try {
      pending = dirty.size();
    } finally {
      lock.unlock();
    }
    return new Stats(
        writes.get(),
        skips.get(),
        conflicts.get(),
        failures.get(),
        deletes.get(),
        forgotten.get(),
        syncs.get(),
        pending);
  }

  @Override
  public Optional<PodStatus> getPodStatus(String uid) {
    lock.lock();
    try {
      Entry e = entries.get(uid);
      return e == null || e.status == null
          ? Optional.empty()
          : Optional.of(new PodStatusBuilder(e.status).build());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records the pod's status; never blocks on the API server. A terminal phase (Succeeded, Failed)
   * is kept when a later status says otherwise, and a status that would move a terminated container
   * back (unless the pod restarts always) is dropped, as upstream.
   */
  @Override
  public void setPodStatus(Pod pod, PodStatus status) {
    String uid = Objects.requireNonNull(pod.getMetadata().getUid(), "pod without a uid");
    PodStatus next = new PodStatusBuilder(status).build();
    // Asked outside the lock: it is the caller's code.
    boolean deletable =
        pod.getMetadata().getDeletionTimestamp() != null
            && !Annotations.isStatic(pod)
            && canBeDeletedSafely(pod);
    lock.lock();
    try {
      Entry e = entries.computeIfAbsent(uid, k -> new Entry());
      PodStatus old = e.status;
      if (old != null) {
        String illegal =
            StatusPatches.illegalTransition(
                old, next, pod.getSpec() == null ? null : pod.getSpec().getRestartPolicy());
        if (illegal != null) {
          log.error("StatusManager: status update of {} dropped: {}", ref(pod), illegal);
          return;
        }
        if (StatusGenerator.isTerminal(old.getPhase()) && !old.getPhase().equals(next.getPhase())) {
          log.warn(
              "StatusManager: {} is {}, keeping that phase instead of {}",
              ref(pod),
              old.getPhase(),
              next.getPhase());
          next.setPhase(old.getPhase());
        }
        if (old.getStartTime() != null) {
          next.setStartTime(old.getStartTime()); // the start time never changes
        }
      }
      e.pod = pod;
      e.status = next;
      e.semantic = StatusPatches.semantic(next);
      if (e.gone) {
        return;
      }
      e.deleteRequested |= deletable;
      if (e.deleteRequested || !e.semantic.equals(e.written)) {
        if (dirty.add(uid)) {
          wake.signalAll();
        }
      } else {
        dirty.remove(uid);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void removeOrphanedStatuses(Set<String> keep) {
    lock.lock();
    try {
      entries.keySet().retainAll(keep);
      dirty.retainAll(keep);
    } finally {
      lock.unlock();
    }
  }

  // ---- the sync thread

  /** What the sync thread does next: the pods to sync, and whether this is a periodic re-check. */
  private record Work(List<String> uids, boolean full) {}

  private void run() {
    log.debug("StatusManager: sync thread started");
    while (true) {
      try {
        Work work = awaitWork();
        if (work == null) {
          return;
        }
        syncBatch(work);
      } catch (InterruptedException e) {
        if (isStopping()) {
          return;
        }
        Thread.interrupted(); // a stray interrupt: keep going
      } catch (RuntimeException e) {
        log.error("StatusManager: unexpected failure in the sync thread, continuing", e);
      }
    }
  }

  /**
   * Waits until pods are due (changed, or their retry time came) or the periodic re-check is; null
   * when stopping.
   */
  private Work awaitWork() throws InterruptedException {
    lock.lock();
    try {
      while (!stopping) {
        Instant now = clock.instant();
        if (!now.isBefore(nextFullSync)) {
          nextFullSync = now.plus(syncPeriod);
          return new Work(new ArrayList<>(entries.keySet()), true);
        }
        List<String> due = due(now);
        if (!due.isEmpty()) {
          return new Work(due, false);
        }
        wake.awaitNanos(untilNextWork(now).toNanos());
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  private void syncBatch(Work work) throws InterruptedException {
    Set<String> done = new HashSet<>();
    for (String uid : work.uids()) {
      if (work.full()) {
        // A re-check of many pods takes a while under the rate budget: changes jump the queue.
        for (String changed : dueNow()) {
          if (isStopping()) {
            return;
          }
          syncPod(changed);
          done.add(changed);
        }
      }
      if (isStopping()) {
        return;
      }
      if (done.add(uid)) {
        syncPod(uid);
      }
    }
    if (work.full()) {
      syncs.incrementAndGet();
      log.debug("StatusManager: re-checked {} pods; {}", work.uids().size(), stats());
    }
  }

  private List<String> dueNow() {
    lock.lock();
    try {
      return due(clock.instant());
    } finally {
      lock.unlock();
    }
  }

  /** Dirty pods whose retry time has come; under {@code lock}. */
  private List<String> due(Instant now) {
    List<String> out = new ArrayList<>();
    for (String uid : dirty) {
      Entry e = entries.get(uid);
      if (e != null && (e.retryAt == null || !now.isBefore(e.retryAt))) {
        out.add(uid);
      }
    }
    return out;
  }

  /** How long the thread may wait before anything is due; under {@code lock}. */
  private Duration untilNextWork(Instant now) {
    Instant next = nextFullSync;
    for (String uid : dirty) {
      Entry e = entries.get(uid);
      if (e != null && e.retryAt != null && e.retryAt.isBefore(next)) {
        next = e.retryAt;
      }
    }
    Duration d = Duration.between(now, next);
    return d.isNegative() || d.isZero() ? Duration.ofMillis(1) : d;
  }

  private boolean isStopping() {
    lock.lock();
    try {
      return stopping;
    } finally {
      lock.unlock();
    }
  }

  private void syncPod(String uid) throws InterruptedException {
    Snapshot s;
    lock.lock();
    try {
      Entry e = entries.get(uid);
      dirty.remove(uid);
      if (e == null || e.gone || e.pod == null) {
        return;
      }
      e.deleteRequested = false; // this sync looks at the deletion
      s =
          new Snapshot(
              uid,
              e.pod,
              e.status,
              e.semantic,
              e.failuresInRow + 1,
              nextRetryDelay(e.retryDelay),
              e.keptTerminal);
    } finally {
      lock.unlock();
    }
    Outcome outcome;
    MDC.put("pod", ref(s.pod()));
    MDC.put("podUid", uid);
    try {
      outcome = sync(s);
    } catch (KubernetesClientException e) {
      if (isStopping()) {
        return; // interrupted by stop()
      }
      outcome = failed(s, "sync", e.getCode(), e);
    } finally {
      MDC.remove("pod");
      MDC.remove("podUid");
    }
    record(s, outcome);
  }

  /** Applies the outcome to the pod's entry. */
  private void record(Snapshot s, Outcome outcome) {
    lock.lock();
    try {
      Entry e = entries.get(s.uid());
      if (e == null) {
        return; // removed as an orphan meanwhile
      }
      switch (outcome) {
        case WRITTEN, IN_SYNC -> {
          if (e.failuresInRow > 0) {
            log.info(
                "StatusManager: {} is in sync again after {} failed attempts",
                ref(s.pod()),
                e.failuresInRow);
          }
          e.written = s.semantic();
          e.retryAt = null;
          e.retryDelay = null;
          e.failuresInRow = 0;
          // A status set while we wrote was compared with the older written one: decide again.
          if (e.deleteRequested || !e.semantic.equals(e.written)) {
            dirty.add(s.uid());
          } else {
            dirty.remove(s.uid());
          }
        }
        case KEPT_TERMINAL -> {
          e.retryAt = null;
          e.retryDelay = null;
          e.failuresInRow = 0;
          e.keptTerminal = true;
        }
        case GONE, DELETED -> {
          e.gone = true;
          dirty.remove(s.uid());
          forgotten.incrementAndGet();
        }
        case NO_MIRROR, RETRY -> {
          e.retryDelay = s.nextRetry();
          e.retryAt = clock.instant().plus(s.nextRetry());
          if (outcome == Outcome.RETRY) {
            e.failuresInRow = s.attempt();
          }
          dirty.add(s.uid());
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private Outcome sync(Snapshot s) throws InterruptedException {
    Pod pod = s.pod();
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    boolean isStatic = Annotations.isStatic(pod);

    acquire();
    Pod api = client.pods().inNamespace(ns).withName(name).get();
    if (api == null) {
      if (isStatic) {
        skips.incrementAndGet();
        log.debug("StatusManager: {} has no mirror pod yet, its status waits", ref(pod));
        return Outcome.NO_MIRROR;
      }
      log.debug("StatusManager: {} is gone from the API server, forgetting it", ref(pod));
      return Outcome.GONE;
    }
    String apiUid = api.getMetadata().getUid();
    if (isStatic) {
      if (!Annotations.isMirror(api) || !mirrorMatches(pod, api)) {
        skips.incrementAndGet();
        log.debug(
            "StatusManager: {} in the API is not the mirror of static pod {}, its status waits",
            ref(api),
            s.uid());
        return Outcome.NO_MIRROR;
      }
    } else if (!s.uid().equals(apiUid)) {
      log.debug(
          "StatusManager: {} was deleted and recreated (new uid {}), forgetting the old pod",
          ref(pod),
          apiUid);
      return Outcome.GONE;
    }

    Outcome outcome;
    PodStatus apiStatus = api.getStatus();
    String apiPhase = apiStatus == null ? null : apiStatus.getPhase();
    if (StatusGenerator.isTerminal(apiPhase) && !apiPhase.equals(s.status().getPhase())) {
      skips.incrementAndGet();
      String msg =
          "StatusManager: "
              + ref(pod)
              + " is "
              + apiPhase
              + " in the API, not moving it back to "
              + s.status().getPhase();
      if (s.keptTerminal()) {
        log.debug(msg);
      } else {
        log.warn(msg);
      }
      outcome = Outcome.KEPT_TERMINAL;
    } else if (StatusPatches.semantic(apiStatus).equals(s.semantic())) {
      skips.incrementAndGet();
      outcome = Outcome.IN_SYNC;
    } else {
      outcome = patch(s, api);
    }
    if (outcome == Outcome.GONE || outcome == Outcome.RETRY || outcome == Outcome.NO_MIRROR) {
      return outcome;
    }
    // As upstream, the status is written first, and mirror pods are never deleted here.
    if (!isStatic && api.getMetadata().getDeletionTimestamp() != null && canBeDeletedSafely(api)) {
      return delete(s, api);
    }
    return outcome;
  }

  private Outcome patch(Snapshot s, Pod api) throws InterruptedException {
    Pod pod = s.pod();
    String json = StatusPatches.mergePatch(api.getMetadata().getUid(), s.status(), api.getStatus());
    acquire();
    try {
      client
          .pods()
          .inNamespace(api.getMetadata().getNamespace())
          .withName(api.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), json);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404 || isUidMismatch(e)) {
        if (Annotations.isStatic(pod)) {
          return Outcome.NO_MIRROR; // the mirror went away or was replaced; it will be back
        }
        log.debug("StatusManager: {} is gone or was replaced, forgetting it", ref(pod));
        return Outcome.GONE;
      }
      return failed(s, "status update", e.getCode(), e);
    }
    writes.incrementAndGet();
    log.debug("StatusManager: status of {} written (phase {})", ref(pod), s.status().getPhase());
    return Outcome.WRITTEN;
  }

  /**
   * Deletes the API pod for good: grace period 0, with its UID as the precondition so that a new
   * pod of the same name is never hit. fabric8's delete DSL cannot express a UID precondition, so
   * this is a plain DELETE with a body through the client's HTTP client.
   */
  private Outcome delete(Snapshot s, Pod api) throws InterruptedException {
    String ns = api.getMetadata().getNamespace();
    String name = api.getMetadata().getName();
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0,"
            + "\"preconditions\":{\"uid\":\""
            + api.getMetadata().getUid()
            + "\"}}";
    String base = client.getMasterUrl().toString();
    String url =
        (base.endsWith("/") ? base : base + "/")
            + "api/v1/namespaces/"
            + URLEncoder.encode(ns, StandardCharsets.UTF_8)
            + "/pods/"
            + URLEncoder.encode(name, StandardCharsets.UTF_8);
    acquire();
    HttpRequest request =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(url)
            .method("DELETE", "application/json", body)
            .build();
    HttpResponse<String> response;
    try {
      Integer configured = client.getConfiguration().getRequestTimeout();
      long timeout = configured == null || configured <= 0 ? 10_000 : configured;
      response =
          client
              .getHttpClient()
              .sendAsync(request, String.class)
              .get(timeout, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      return failed(s, "delete", 0, cause);
    }
    int code = response.code();
    if (code == 200 || code == 202 || code == 404) {
      deletes.incrementAndGet();
      log.info("StatusManager: {} fully terminated and removed from the API server", ref(api));
      return Outcome.DELETED;
    }
    if (code == 409) { // the UID precondition failed: a new pod has this name
      log.info("StatusManager: {} was replaced before it could be deleted", ref(api));
      return Outcome.GONE;
    }
    return failed(s, "delete", code, new IllegalStateException(abbreviate(response.body())));
  }

  /**
   * Counts and logs a failed request: a conflict at INFO; anything else at WARN on the first
   * attempt of a streak and every {@value #WARN_EVERY}th after it (DEBUG in between, so an outage
   * does not flood the log); the counters keep the full tally.
   */
  private Outcome failed(Snapshot s, String what, int code, Throwable e) {
    String retry = "will retry in " + s.nextRetry().toMillis() + "ms (attempt " + s.attempt() + ")";
    if (code == 409) {
      conflicts.incrementAndGet();
      log.info(
          "StatusManager: conflict on {} of {}, {}: {}", what, ref(s.pod()), retry, message(e));
      return Outcome.RETRY;
    }
    failures.incrementAndGet();
    String msg =
        "StatusManager: "
            + what
            + " of "
            + ref(s.pod())
            + " failed"
            + (code > 0 ? " (HTTP " + code + ")" : "")
            + ", "
            + retry
            + ": "
            + message(e);
    if (s.attempt() == 1 || s.attempt() % WARN_EVERY == 0) {
      log.warn(msg);
    } else {
      log.debug(msg);
    }
    return Outcome.RETRY;
  }

  private Duration nextRetryDelay(Duration last) {
    return last == null ? FIRST_RETRY : min(last.multipliedBy(2), syncPeriod);
  }

  /** Takes a token of the rate budget, waiting for one; returns early only to stop. */
  private void acquire() throws InterruptedException {
    while (true) {
      Duration wait = budget.tryAcquire();
      if (wait.isZero()) {
        return;
      }
      lock.lock();
      try {
        if (stopping) {
          throw new InterruptedException("stopping");
        }
        wake.awaitNanos(wait.toNanos());
      } finally {
        lock.unlock();
      }
    }
  }

  private boolean canBeDeletedSafely(Pod pod) {
    try {
      return canBeDeleted.test(pod);
    } catch (RuntimeException e) {
      log.warn("StatusManager: cannot tell whether {} can be deleted: {}", ref(pod), e.toString());
      return false;
    }
  }

  /** Whether the mirror pod belongs to this version of the static pod (same config hash). */
  private static boolean mirrorMatches(Pod staticPod, Pod mirror) {
    Map<String, String> a = staticPod.getMetadata().getAnnotations();
    String hash = a == null ? null : a.get(Annotations.CONFIG_HASH);
    if (hash == null) {
      return true;
    }
    return hash.equals(mirror.getMetadata().getAnnotations().get(Annotations.CONFIG_MIRROR));
  }

  /**
   * A patch whose metadata.uid differs from the object's: the pod was replaced. NOTE: apiserver
   * 1.20 answers it with 422 Invalid ("metadata.uid: ... field is immutable"), not 409 as a
   * DeleteOptions UID precondition does.
   */
  static boolean isUidMismatch(KubernetesClientException e) {
    if (e.getCode() != 409 && e.getCode() != 422) {
      return false;
    }
    String m = String.valueOf(e.getMessage());
    return m.contains("metadata.uid") || m.contains("UID in precondition");
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static String ref(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** The API server's own message, or the root cause (e.g. "Connection refused"). */
  private static String message(Throwable e) {
    if (e instanceof KubernetesClientException k
        && k.getStatus() != null
        && k.getStatus().getMessage() != null) {
      return abbreviate(k.getStatus().getMessage());
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return abbreviate(root == e ? String.valueOf(e.getMessage()) : root.toString());
  }

  private static String abbreviate(String s) {
    return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "...";
  }
}
