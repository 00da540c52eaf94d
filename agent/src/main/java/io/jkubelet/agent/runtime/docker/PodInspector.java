package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.util.Errors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists the kubelet's containers and inspects one pod's: the engine calls behind {@link
 * DockerRuntime#listContainers} and {@link DockerRuntime#podStatus}, mapped by {@link
 * InspectMapping}; the listings are streamed by {@link ContainerList} and the inspects by {@link
 * ContainerInspect} when the client's transport is at hand (docker-java's binding otherwise). A
 * pod's containers and images are inspected in parallel on a small pool of virtual threads that
 * start on demand and die after 30 s idle.
 *
 * <p>Thread-safe: the pool and the image-ref cache are concurrent.
 */
final class PodInspector {
  private static final Logger log = LoggerFactory.getLogger(PodInspector.class);

  /** How long {@link #podStatus} waits for one inspect (queueing included). */
  static final Duration INSPECT_TIMEOUT = Duration.ofSeconds(20);

  /** How many inspects run at once, across all callers. */
  static final int INSPECT_PARALLELISM = 8;

  /** The image-ref cache is dropped when it grows beyond this many entries. */
  private static final int IMAGE_REF_CACHE_MAX = 1000;

  private final DockerClient api;
  private final ContainerList fastList;
  private final ContainerInspect containers;
  private final ThreadPoolExecutor pool;
  private final TerminationMessages terminations;

  /**
   * Image id → image ref. Ids are content addresses, so an id's digest rarely changes; the cache is
   * dropped when it grows large. Saves one image inspect per image on every pod status.
   */
  private final Map<String, String> imageRefCache = new ConcurrentHashMap<>();

  PodInspector(DockerClient api) {
    this.api = api;
    var transport = DockerClients.transportOf(api);
    this.fastList = transport.map(ContainerList::new).orElse(null);
    this.containers = ContainerInspect.of(api);
    this.terminations = new TerminationMessages(api);
    this.pool =
        new ThreadPoolExecutor(
            INSPECT_PARALLELISM,
            INSPECT_PARALLELISM,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            Thread.ofVirtual().name("docker-runtime-inspect-", 1).factory());
    this.pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Every container with a pod UID label (and the scope's labels); see {@link Scope}. Read by
   * {@link ContainerList} when the client's transport is at hand, else through docker-java.
   */
  List<ContainerSummary> listContainers(Scope scope) {
    // A filter on the key alone matches every container that has the label, whatever its value.
    List<String> filter = scope.filter(Labels.POD_UID, null);
    return fastList != null ? fastList.list(filter) : listThroughDockerJava(filter);
  }

  /**
   * {@link #listContainers}'s answer as docker-java's listing binds it; for the fallback and tests.
   */
  List<ContainerSummary> listThroughDockerJava(List<String> labelFilter) {
    return list(labelFilter).stream()
        .map(InspectMapping::summary)
        .flatMap(Optional::stream)
        .toList();
  }

  /** Inspects the pod's sandboxes and containers, and the images of its containers. */
  PodStatus podStatus(PodRef pod, Scope scope) {
    return podStatus(pod, ContainerSummary.ids(listContainers(pod, scope)));
  }

  /** The pod's status from these of its containers, as a listing just named them. */
  PodStatus podStatus(PodRef pod, List<String> ids) {
    if (ids.isEmpty()) {
      return PodStatus.empty(pod);
    }
    Map<String, Inspected> inspected = inParallel(ids, containers::inspect);

    List<String> imageIds =
        inspected.values().stream()
            .filter(r -> !InspectMapping.isSandbox(r.labels()))
            .map(Inspected::imageId)
            .filter(Objects::nonNull)
            .distinct()
            .toList();
    Map<String, String> imageRefs = inParallel(imageIds, this::imageRef);

    List<SandboxStatus> sandboxes = new ArrayList<>();
    List<ContainerStatus> statuses = new ArrayList<>();
    for (Inspected r : inspected.values()) {
      if (InspectMapping.isSandbox(r.labels())) {
        sandboxes.add(InspectMapping.sandboxStatus(r));
      } else {
        statuses.add(terminations.complete(InspectMapping.containerStatus(r, imageRefs), r));
      }
    }
    return new PodStatus(pod, sandboxes, statuses);
  }

  /** Stops the pool; later calls fail with {@code UNAVAILABLE}. */
  void close() {
    pool.shutdownNow();
  }

  /**
   * The pod's sandboxes and containers, as {@link #listContainers}, the engine asked for its UID.
   */
  List<ContainerSummary> listContainers(PodRef pod, Scope scope) {
    List<String> filter = scope.filter(Labels.POD_UID, pod.uid());
    return fastList != null ? fastList.list(filter) : listThroughDockerJava(filter);
  }

  private List<Container> list(List<String> labelFilter) {
    try {
      return api.listContainersCmd().withShowAll(true).withFilter("label", labelFilter).exec();
    } catch (RuntimeException e) {
      throw DockerErrors.translate(e, null);
    }
  }

  private String imageRef(String imageId) {
    String cached = imageRefCache.get(imageId);
    if (cached != null) {
      return cached;
    }
    if (imageRefCache.size() > IMAGE_REF_CACHE_MAX) {
      imageRefCache.clear();
    }
    String ref;
    try {
      ref = InspectMapping.imageRef(imageId, api.inspectImageCmd(imageId).exec().getRepoDigests());
    } catch (RuntimeException e) {
      log.debug("DockerRuntime: inspecting image {} failed: {}", imageId, e.toString());
      ref = InspectMapping.imageRef(imageId, null);
    }
    imageRefCache.put(imageId, ref);
    return ref;
  }

  /**
   * Runs {@code fn} on every key on the pool and waits for each up to {@link #INSPECT_TIMEOUT}.
   * Keys whose call fails with not-found are left out (the container vanished since the listing);
   * any other failure fails the whole call, since a status that silently misses a container would
   * make the caller create it again.
   */
  private <T> Map<String, T> inParallel(Collection<String> keys, Function<String, T> fn) {
    Map<String, Future<T>> futures = new LinkedHashMap<>();
    try {
      for (String key : new LinkedHashSet<>(keys)) {
        futures.put(key, pool.submit(() -> fn.apply(key)));
      }
      Map<String, T> out = new LinkedHashMap<>();
      for (Map.Entry<String, Future<T>> e : futures.entrySet()) {
        await(e.getKey(), e.getValue()).ifPresent(v -> out.put(e.getKey(), v));
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Errors.withCause(
          new RuntimeError(Kind.UNAVAILABLE, "interrupted while inspecting containers"), e);
    } catch (RejectedExecutionException e) {
      throw Errors.withCause(new RuntimeError(Kind.UNAVAILABLE, "the Docker runtime is closed"), e);
    } finally {
      futures.values().forEach(f -> f.cancel(true)); // a no-op for the completed ones
    }
  }

  /** One inspect's answer; empty when the thing vanished. */
  private static <T> Optional<T> await(String key, Future<T> future) throws InterruptedException {
    try {
      return Optional.of(future.get(INSPECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException ex) {
      Throwable cause = ex.getCause();
      if (DockerErrors.isNotFound(cause)) {
        log.debug("DockerRuntime: {} vanished before it could be inspected", key);
        return Optional.empty();
      }
      throw DockerErrors.translate(cause, null);
    } catch (TimeoutException ex) {
      throw Errors.withCause(
          new RuntimeError(
              Kind.UNAVAILABLE,
              "inspecting " + key + " took longer than " + INSPECT_TIMEOUT.toSeconds() + " s"),
          ex);
    }
  }
}
