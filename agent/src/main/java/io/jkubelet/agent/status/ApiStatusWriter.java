package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.podconfig.Annotations;
import io.jkubelet.agent.podconfig.PodConfig;
import io.jkubelet.agent.util.ApiRequests;
import io.jkubelet.agent.util.Errors;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.util.TokenBucket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one pod's status to the API server, as upstream's {@code syncPod} in {@code
 * status_manager.go}: looks at the API object, patches its status when it differs from ours, and
 * deletes a pod that is finished on this node. Says how that ended as a {@link StatusSyncResult},
 * which decides whether and when the pod is tried again.
 *
 * <p>The API object of a regular pod ({@code config.source=api}) is the pod itself. The API object
 * of a static pod is its mirror pod, which has the same namespace and name and a UID of its own;
 * until a mirror exists, the static pod's status waits. Each write is a strategic merge patch of
 * {@code pods/<name>/status} carrying the API object's UID as a precondition, and needing nothing
 * of the object's status (see {@link StatusPatches}). A terminal phase in the API is never moved
 * back.
 *
 * <p>The API object looked at is the pod source's copy (its watch), where upstream GETs the object
 * before every write: a write is one request, not two. Only a pod the source does not have is read
 * with a GET. The copy may be behind our last write by the watch's latency, so it proves a write
 * needless ({@link StatusSyncResult#IN_SYNC}) only when nothing we wrote since differs from it: a
 * status that went A, B, A is written back to A although the copy may still say A. A copy that is
 * behind a deletion is caught by the patch: the pod is gone (404) or replaced (the UID
 * precondition).
 *
 * <p>When a regular pod's API object has a deletionTimestamp and {@code canBeDeleted} accepts it,
 * the pod is deleted with grace period 0 and a UID precondition, so {@code kubectl delete} returns
 * and nothing stays Terminating. Mirror pods are never deleted here.
 *
 * <p>Failures: a 404 means the pod is gone ({@link StatusSyncResult#GONE}; a static pod just waits
 * for its mirror). A 409 conflict is logged at INFO, anything else at WARN, and both are retried
 * ({@link StatusSyncResult#RETRY}). Every request first spends a token of the rate budget, waiting
 * for one with the given sleeper.
 *
 * <p>Used by the one sync thread; stateless apart from the shared budget and counters, which are
 * thread-safe.
 */
final class ApiStatusWriter {
  private static final Logger log = LoggerFactory.getLogger(ApiStatusWriter.class);
  private static final int WARN_EVERY = 10;
  private static final int ABBREVIATE_AT = 300;
  private static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

  /**
   * What the writer works with.
   *
   * @param client the API server's client
   * @param seen the pod by UID as the pod source last saw it in the API (for a static pod, its
   *     mirror pod), empty when it has none
   * @param budget the rate budget; every request spends a token of it
   * @param budgetWait waits for the rate budget; throws {@link InterruptedException} to give up
   * @param canBeDeleted whether a pod that is being deleted is finished on this node
   * @param counters what the writes came to
   */
  record Deps(
      KubernetesClient client,
      Function<String, Optional<Pod>> seen,
      TokenBucket budget,
      Sleeper budgetWait,
      Predicate<Pod> canBeDeleted,
      StatusCounters counters) {}

  private final Deps deps;

  ApiStatusWriter(Deps deps) {
    this.deps = deps;
  }

  /**
   * Syncs the pod's status with its API object.
   *
   * @throws KubernetesClientException when the GET fails; see {@link #failed}
   */
  StatusSyncResult sync(SyncAttempt a) throws InterruptedException {
    Pod pod = a.pod();
    Pod api = deps.seen().apply(a.uid()).orElse(null);
    if (api == null) {
      acquire();
      api =
          deps.client()
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .get();
    }
    StatusSyncResult missing = checkApiObject(a, api);
    if (missing != null) {
      return missing;
    }
    StatusSyncResult result = write(a, api);
    if (result == StatusSyncResult.GONE
        || result == StatusSyncResult.RETRY
        || result == StatusSyncResult.NO_MIRROR) {
      return result;
    }
    // As upstream, the status is written first, and mirror pods are never deleted here.
    return !Annotations.isStatic(pod) && deletable(api) ? delete(a, api) : result;
  }

  /**
   * Whether the pod is being deleted and {@code canBeDeleted} says it is finished here; never for a
   * static pod or its mirror. A failing {@code canBeDeleted} counts as no.
   */
  boolean deletable(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() == null || Annotations.isStatic(pod)) {
      return false;
    }
    try {
      return deps.canBeDeleted().test(pod);
    } catch (RuntimeException e) {
      log.warn(
          "StatusManager: cannot tell whether {} can be deleted: {}",
          PodConfig.fullName(pod),
          e.toString());
      return false;
    }
  }

  /** Null when {@code api} is the object to write to; otherwise why there is none. */
  private StatusSyncResult checkApiObject(SyncAttempt a, Pod api) {
    Pod pod = a.pod();
    boolean isStatic = Annotations.isStatic(pod);
    if (api == null) {
      if (isStatic) {
        deps.counters().skipped();
        log.debug(
            "StatusManager: {} has no mirror pod yet, its status waits", PodConfig.fullName(pod));
        return StatusSyncResult.NO_MIRROR;
      }
      log.debug(
          "StatusManager: {} is gone from the API server, forgetting it", PodConfig.fullName(pod));
      return StatusSyncResult.GONE;
    }
    String apiUid = api.getMetadata().getUid();
    if (isStatic) {
      if (!Annotations.isMirror(api) || !mirrorMatches(pod, api)) {
        deps.counters().skipped();
        log.debug(
            "StatusManager: {} in the API is not the mirror of static pod {}, its status waits",
            PodConfig.fullName(api),
            a.uid());
        return StatusSyncResult.NO_MIRROR;
      }
    } else if (!a.uid().equals(apiUid)) {
      log.debug(
          "StatusManager: {} was deleted and recreated (new uid {}), forgetting the old pod",
          PodConfig.fullName(pod),
          apiUid);
      return StatusSyncResult.GONE;
    }
    return null;
  }

  /** Patches the API object's status unless it has ours already or is terminal. */
  private StatusSyncResult write(SyncAttempt a, Pod api) throws InterruptedException {
    PodStatus apiStatus = api.getStatus();
    String apiPhase = apiStatus == null ? null : apiStatus.getPhase();
    if (PodPhases.isTerminal(apiPhase) && !apiPhase.equals(a.status().getPhase())) {
      deps.counters().skipped();
      String msg =
          "StatusManager: "
              + PodConfig.fullName(a.pod())
              + " is "
              + apiPhase
              + " in the API, not moving it back to "
              + a.status().getPhase();
      if (a.turn().keptTerminal()) {
        log.debug(msg);
      } else {
        log.warn(msg);
      }
      return StatusSyncResult.KEPT_TERMINAL;
    }
    if (StatusPatches.semantic(apiStatus).equals(a.semantic())
        && (a.turn().written() == null || a.turn().written().equals(a.semantic()))) {
      deps.counters().skipped();
      return StatusSyncResult.IN_SYNC;
    }
    return patch(a, api);
  }

  private StatusSyncResult patch(SyncAttempt a, Pod api) throws InterruptedException {
    Pod pod = a.pod();
    String json = StatusPatches.patch(api.getMetadata().getUid(), a.status());
    acquire();
    // A plain request, not fabric8's resource(api).patch(..): that deep-copies the pod first and
    // parses the answer into another, neither of which is used; in a churn of hollow nodes the
    // copy alone was 4 % of the process's CPU (docs/performance.md). Nor patch by name alone,
    // which GETs the pod first.
    HttpResponse<String> response;
    try {
      response = ApiRequests.send(deps.client(), patchRequest(api, json));
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      return failed(a, "status update", 0, cause);
    }
    if (!response.isSuccessful()) {
      KubernetesClientException e =
          ApiRequests.error(deps.client(), "PATCH " + statusPath(api), response);
      if (response.code() == 404 || isUidMismatch(e)) {
        if (Annotations.isStatic(pod)) {
          return StatusSyncResult.NO_MIRROR; // the mirror went away or was replaced
        }
        log.debug(
            "StatusManager: {} is gone or was replaced, forgetting it", PodConfig.fullName(pod));
        return StatusSyncResult.GONE;
      }
      return failed(a, "status update", e);
    }
    deps.counters().written();
    log.debug(
        "StatusManager: status of {} written (phase {})",
        PodConfig.fullName(pod),
        a.status().getPhase());
    return StatusSyncResult.WRITTEN;
  }

  private HttpRequest patchRequest(Pod api, String json) {
    return deps.client()
        .getHttpClient()
        .newHttpRequestBuilder()
        .uri(ApiRequests.url(deps.client(), statusPath(api)))
        .method("PATCH", STRATEGIC_MERGE_PATCH, json)
        .build();
  }

  private static String statusPath(Pod api) {
    return podPath(api) + "/status";
  }

  /** {@code api/v1/namespaces/<ns>/pods/<name>}. */
  private static String podPath(Pod api) {
    return "api/v1/namespaces/"
        + URLEncoder.encode(api.getMetadata().getNamespace(), StandardCharsets.UTF_8)
        + "/pods/"
        + URLEncoder.encode(api.getMetadata().getName(), StandardCharsets.UTF_8);
  }

  /**
   * Deletes the API pod for good: grace period 0, with its UID as the precondition so that a new
   * pod of the same name is never hit. fabric8's delete DSL cannot express a UID precondition, so
   * this is a plain DELETE with a body through the client's HTTP client.
   */
  private StatusSyncResult delete(SyncAttempt a, Pod api) throws InterruptedException {
    acquire();
    HttpResponse<String> response;
    try {
      response = ApiRequests.send(deps.client(), deleteRequest(api));
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      return failed(a, "delete", 0, cause);
    }
    int code = response.code();
    if (code == 200 || code == 202 || code == 404) {
      deps.counters().deleted();
      log.info(
          "StatusManager: {} fully terminated and removed from the API server",
          PodConfig.fullName(api));
      return StatusSyncResult.DELETED;
    }
    if (code == 409) { // the UID precondition failed: a new pod has this name
      log.info(
          "StatusManager: {} was replaced before it could be deleted", PodConfig.fullName(api));
      return StatusSyncResult.GONE;
    }
    return failed(a, "delete", code, new IllegalStateException(abbreviate(response.body())));
  }

  private HttpRequest deleteRequest(Pod api) {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0,"
            + "\"preconditions\":{\"uid\":\""
            + api.getMetadata().getUid()
            + "\"}}";
    return deps.client()
        .getHttpClient()
        .newHttpRequestBuilder()
        .uri(ApiRequests.url(deps.client(), podPath(api)))
        .method("DELETE", "application/json", body)
        .build();
  }

  /** {@link #failed(SyncAttempt, String, int, Throwable)} with the API server's answer, if any. */
  StatusSyncResult failed(SyncAttempt a, String what, Throwable e) {
    return failed(a, what, Errors.httpCode(e), e);
  }

  /**
   * Counts and logs a failed request, which is retried: a conflict at INFO; anything else at WARN
   * on the first attempt of a streak and every {@value #WARN_EVERY}th after it (DEBUG in between,
   * so an outage does not flood the log); the counters keep the full tally.
   *
   * @param code the HTTP status of the answer, 0 when there was none
   */
  private StatusSyncResult failed(SyncAttempt a, String what, int code, Throwable e) {
    String retry = "will retry in " + a.nextRetry().toMillis() + "ms (attempt " + a.attempt() + ")";
    if (code == 409) {
      deps.counters().conflict();
      log.info(
          "StatusManager: conflict on {} of {}, {}: {}",
          what,
          PodConfig.fullName(a.pod()),
          retry,
          message(e));
      return StatusSyncResult.RETRY;
    }
    deps.counters().failed();
    String msg =
        "StatusManager: "
            + what
            + " of "
            + PodConfig.fullName(a.pod())
            + " failed"
            + (code > 0 ? " (HTTP " + code + ")" : "")
            + ", "
            + retry
            + ": "
            + message(e);
    if (a.attempt() == 1 || a.attempt() % WARN_EVERY == 0) {
      log.warn(msg);
    } else {
      log.debug(msg);
    }
    return StatusSyncResult.RETRY;
  }

  /** Takes a token of the rate budget, waiting for one; throws only to give up. */
  private void acquire() throws InterruptedException {
    deps.budget().acquire(deps.budgetWait());
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
  static boolean isUidMismatch(Throwable e) {
    int code = Errors.httpCode(e);
    if (code != 409 && code != 422) {
      return false;
    }
    String m = String.valueOf(e.getMessage());
    return m.contains("metadata.uid") || m.contains("UID in precondition");
  }

  /** The API server's own message, or the root cause (e.g. "Connection refused"). */
  private static String message(Throwable e) {
    String api = Errors.apiMessage(e);
    if (api != null) {
      return abbreviate(api);
    }
    Throwable root = Errors.rootCause(e);
    return abbreviate(root == e ? String.valueOf(e.getMessage()) : Errors.describeRoot(e));
  }

  private static String abbreviate(String s) {
    return s == null || s.length() <= ABBREVIATE_AT ? s : s.substring(0, ABBREVIATE_AT) + "...";
  }
}
