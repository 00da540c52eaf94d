package io.jkubelet.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.metrics.KubeletMetrics;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.pod.PodManager;
import io.jkubelet.agent.stats.SummaryProvider;
import io.jkubelet.agent.util.Executors2;
import io.jkubelet.agent.util.Lifecycle;
import io.jkubelet.agent.workers.PodWorkers;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent, assembled: it builds every subsystem from the options and the host facts read
 * before (no constructor here or below does I/O), starts them in dependency order and stops them in
 * reverse. The {@link Kubelet} it builds is the sync loop's handler.
 *
 * <p>Construction starts nothing; {@link #start()} does. Stopping leaves every pod running: the
 * next start adopts them.
 *
 * <p>It is the one place that knows the start and stop order of every subsystem (the container
 * manager first and last, the network, the sync loop, the workers, housekeeping, the servers),
 * which is easiest to check read in one file. The parts are built and wired in {@link AgentParts},
 * the pod-running half of them in {@code RuntimeWiring} and the metrics in {@code AgentMetrics}.
 */
public final class Agent implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);

  private final AgentParts p;
  private final AtomicBoolean started = new AtomicBoolean();

  /**
   * What the agent's metrics and stats need from outside.
   *
   * @param metrics the registries; the runtime and API clients of the {@link Setup} should record
   *     into the same (see {@code metrics.InstrumentedRuntime}, {@code RestClientMetrics})
   * @param imageFsDir the engine's root directory, for the image file system's stats and the {@code
   *     imagefs} signals, asked for until it answers (at most once a minute); while it answers
   *     null, the root directory's file system
   * @param imageGc what the eviction manager reclaims images through under disk pressure
   */
  public record Monitoring(
      KubeletMetrics metrics,
      Supplier<Path> imageFsDir,
      io.jkubelet.agent.gc.ImageGarbageCollector imageGc) {
    /** Without image garbage collection: the eviction manager deletes no image. */
    public Monitoring(KubeletMetrics metrics, Supplier<Path> imageFsDir) {
      this(metrics, imageFsDir, EvictionWiring.NO_IMAGE_GC);
    }
  }

  /** Builds the agent with metrics of its own; starts nothing. */
  public Agent(Setup setup) {
    this(setup, new Monitoring(new KubeletMetrics(setup.options().nodeName()), () -> null));
  }

  /** Builds the agent; starts nothing. */
  public Agent(Setup setup, Monitoring monitoring) {
    this.p = new AgentParts(setup, monitoring);
  }

  @Override
  public void start() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    var options = p.setup.options();
    log.info(
        "Starting jkubelet on node {} ({}, static pods from {})",
        options.nodeName(),
        p.setup.cluster() == null ? "standalone" : "cluster mode",
        options.config().staticPods().staticPodPath().isEmpty()
            ? "nowhere"
            : options.config().staticPods().staticPodPath());
    // The pods' cgroups before anything else: a failure refuses the start, with nothing to sto
    try {
      p.setup.containerManager().start();
    } catch (RuntimeException e) {
      started.set(false);
      throw e;
    }
    p.setup.events().broadcaster().start();
    // The pod sources first: the API source's first list is the longest wait of a start, and what
    // they deliver waits in the loop's channel until the loop runs.
    p.sources.forEach(Lifecycle::start);
    try {
      log.info("Container runtime: {} {}", p.setup.runtime().type(), p.setup.runtime().version());
    } catch (RuntimeException e) {
      log.error(
          "Container runtime is not answering ({}); pods will start once it does", e.getMessage());
    }
    p.setup
        .recorder()
        .event(Refs.node(options.nodeName()), EventType.Normal, "Starting", "Starting kubelet.");
    p.setup.statuses().start();
    p.setup.network().start(); // its attachments are read before the first sync asks for an IP
    p.probes.start();
    // The servers' TLS set-up (loading the native TLS library) takes a second or more on a busy
    // node: it runs beside the first relist and the pod sources' first lists, which every pod's
    // first sync waits for. The node registers, and so reports Ready, only once the kubelet API
    // listens: `kubectl logs` on a Ready node is never refused.
    CompletableFuture<Void> servers =
        CompletableFuture.runAsync(
            this::startServers, r -> Thread.ofVirtual().name("servers-start").start(r));
    p.pleg.start();
    p.logCollector.start();
    p.objects().start();
    p.loop.start();
    try {
      servers.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    p.eviction.start();
    if (p.setup.cluster() != null) {
      p.setup.cluster().node().start();
    }
  }

  /** The pressure conditions that are True now, for the Node's status. Any thread. */
  public java.util.Set<String> pressure() {
    return p.eviction.nodeConditions();
  }

  /** The kubelet API, then the read-only server, whose /healthz then also says the API listens. */
  private void startServers() {
    p.api.start();
    if (p.server != null) {
      p.server.start();
    }
  }

  @Override
  public void stop() {
    if (!started.compareAndSet(true, false)) {
      return;
    }
    p.eviction.stop();
    log.info("Stopping jkubelet; pods keep running");
    p.sources.forEach(Lifecycle::stop);
    if (p.setup.cluster() != null) {
      p.setup.cluster().node().stop();
    }
    p.loop.stop();
    p.pleg.stop();
    p.logCollector.stop();
    Executors2.shutdown(p.background, 2000);
    Executors2.shutdown(p.workerExecutor, 5000);
    p.objects().stop();
    p.probes.stop(); // after the pod workers: their hooks share its HTTP client
    p.setup.network().stop();
    if (p.server != null) {
      p.server.stop();
    }
    p.api.stop();
    p.setup.statuses().stop();
    p.setup.containerManager().stop();
    p.setup.events().broadcaster().stop();
  }

  /**
   * The node's readiness: the loop, the PLEG, the runtime, and the pods' network (upstream's {@code
   * runtime network not ready}).
   */
  @Override
  public Health healthy() {
    for (Health h : List.of(p.loop.healthy(), p.pleg.healthy(), p.runtimeHealth())) {
      if (!h.ok()) {
        return h;
      }
    }
    return p.setup.network().networkError().map(Health::failing).orElse(Health.OK);
  }

  /**
   * The metrics that {@code /metrics}, {@code /metrics/probes} and {@code /metrics/resource} serve.
   */
  public KubeletMetrics metrics() {
    return p.metrics;
  }

  /** The node's and pods' resource usage, for {@code /stats/summary}. */
  public SummaryProvider summary() {
    return p.documents.summary();
  }

  /** The port the kubelet API listens on (0 before start). */
  public int apiPort() {
    return p.api.port();
  }

  /** The port the read-only server listens on (0 when it is off). */
  public int readOnlyPort() {
    return p.server == null ? 0 : p.server.port();
  }

  /**
   * Whether a pod being deleted in the API is finished here; the status manager then deletes the
   * API object.
   */
  public Predicate<Pod> reclaimed() {
    return p.reclaimed;
  }

  /**
   * The pod's API object as the API source last saw it, by the pod's UID: the pod itself, or for a
   * static pod its mirror pod; what the status manager's re-check compares with.
   */
  public Optional<Pod> seenInApi(String uid) {
    return p.podManager.apiObject(uid);
  }

  /** Dead containers and sandboxes, for whoever must free disk at once (eviction). */
  public io.jkubelet.agent.gc.ContainerGarbageCollector containerGarbageCollector() {
    return p.containerGc;
  }

  /** The desired pods, each with the status jkubelet computed for it: {@code /pods}. */
  List<Pod> podsWithStatus() {
    return p.podsWithStatus();
  }

  // For tests.
  PodManager podManager() {
    return p.podManager;
  }

  PodWorkers workers() {
    return p.workers;
  }

  /** The secrets, configMaps and services of the node's pods; none standalone. */
  PodObjects objects() {
    return p.objects();
  }
}
