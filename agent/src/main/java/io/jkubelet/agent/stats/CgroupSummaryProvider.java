package io.jkubelet.agent.stats;

import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodStatus;
import io.jkubelet.agent.runtime.SandboxStatus;
import io.jkubelet.agent.stats.Summary.ContainerStats;
import io.jkubelet.agent.stats.Summary.CpuStats;
import io.jkubelet.agent.stats.Summary.FsStats;
import io.jkubelet.agent.stats.Summary.InterfaceStats;
import io.jkubelet.agent.stats.Summary.MemoryStats;
import io.jkubelet.agent.stats.Summary.NetworkStats;
import io.jkubelet.agent.stats.Summary.PodStats;
import io.jkubelet.agent.stats.Summary.VolumeStats;
import io.jkubelet.agent.util.Guard;
import io.jkubelet.agent.util.StatFs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The summary from cgroup and proc files. Pods are those of the PLEG's cache with a ready sandbox
 * or a running container; a pod's CPU and memory are its pod cgroup's when jkubelet gives pods
 * cgroups (as upstream: the exited containers' CPU time is kept, so the counter never goes back
 * when a container exits), else the sums over its running containers and its sandbox; its processes
 * are the sum over its running containers and its sandbox. Network is the sandbox's network
 * namespace, read through the first process of its cgroup. Files are read once per TTL at most, so
 * a scrape at 110 pods costs a few hundred small reads and no call to the engine.
 *
 * <p>{@code usageNanoCores} is the rate since the previous sample of the same cgroup, so the first
 * summary has none.
 *
 * <p>A pod's volumes, its containers' logs and writable layers are measured by {@link PodStorage},
 * at most once a minute.
 *
 * <p>The node's {@code memory}, {@code fs}, {@code runtime.imageFs}, {@code rlimit} and the {@code
 * pods} system container are not read here: they are the {@link NodeReader}'s latest reading, the
 * one the eviction manager decided on, taken at every call (a cached summary is served again only
 * while that reading is the same). The summary reads the node itself only when nobody has for
 * {@link StatsOptions#NODE_READING_MAX_AGE}.
 *
 * <p>Thread-safe: {@code guard} guards the cached summary and the previous CPU samples; scrapes
 * that come together wait for one reading.
 */
final class CgroupSummaryProvider implements SummaryProvider {
  private static final Logger log = LoggerFactory.getLogger(CgroupSummaryProvider.class);
  private static final String NODE = "/";
  private static final String PODS = "/pods";
  private static final String DEFAULT_INTERFACE = "eth0";
  private static final Duration VOLUME_TTL = Duration.ofMinutes(1);

  private final StatsOptions options;
  private final Supplier<Collection<PodStatus>> pods;
  private final Clock clock;
  private final Cgroups cgroups;
  private final ProcFs proc;
  private final PodStorage storage;

  private final NodeReader node;

  private final Guard guard = new Guard();
  private Read read;
  private Instant readAt;
  private Summary cached;
  private NodeReading cachedReading;

  /** What a summary reads itself, once per TTL: the pods, the node's CPU and network. */
  private record Read(
      List<PodStats> pods,
      CpuStats cpu,
      NetworkStats network,
      String startTime,
      CpuStats podsCpu) {}

  /** The previous CPU sample by key (a container id, a pod uid, or "/"): time and nanoseconds. */
  private Map<String, Sample> samples = new HashMap<>();

  private record Sample(Instant at, long cpuNanos) {}

  CgroupSummaryProvider(
      StatsOptions options, NodeReader node, Supplier<Collection<PodStatus>> pods, Clock clock) {
    this.options = options;
    this.node = node;
    this.pods = pods;
    this.clock = clock;
    this.cgroups = new Cgroups(options.host().cgroupRoot(), options.podCgroups().byUid());
    this.proc = new ProcFs(options.host().procRoot());
    this.storage = new PodStorage(options, clock, VOLUME_TTL);
  }

  @Override
  public Summary summary() {
    return guard.get(
        () -> {
          Instant now = clock.instant();
          // Taken at every call: the node's reading moves with the eviction manager's (100 ms).
          NodeReading reading = node.current(StatsOptions.NODE_READING_MAX_AGE);
          if (read == null || Duration.between(readAt, now).compareTo(options.ttl()) >= 0) {
            read = read(now, VOLUME_TTL);
            readAt = now;
            cached = null;
          }
          return assemble(reading);
        });
  }

  @Override
  public Summary fresh(Duration diskMaxAge) {
    return guard.get(
        () -> {
          Duration age = diskMaxAge.compareTo(VOLUME_TTL) < 0 ? diskMaxAge : VOLUME_TTL;
          read = read(clock.instant(), age);
          readAt = clock.instant();
          cached = null;
          return assemble(node.current(StatsOptions.NODE_READING_MAX_AGE));
        });
  }

  /** The summary of the last read and the node's reading; under the lock. */
  private Summary assemble(NodeReading reading) {
    if (cached == null || cachedReading != reading) {
      cached = new Summary(node(read, reading), read.pods());
      cachedReading = reading;
    }
    return cached;
  }

  /** Reads the pods and the node's CPU now, disk usage at most {@code diskMaxAge} old. */
  private Read read(Instant now, Duration diskMaxAge) {
    Map<String, Sample> next = new HashMap<>();
    List<PodStats> podStats = new ArrayList<>();
    Set<String> live = new HashSet<>();
    storage.begin(diskMaxAge);
    for (PodStatus p : pods.get()) {
      try {
        pod(p, now, next, live).ifPresent(podStats::add);
      } catch (RuntimeException e) {
        // One pod's reading never costs the node's and the other pods' stats.
        log.warn("stats: cannot read the stats of pod {}, left out: {}", p.pod(), e.toString());
      }
    }
    cgroups.retain(live);
    storage.end();
    String time = time(now);
    Long cpuNanos = cpuNanos("").filter(n -> n > 0).or(proc::cpuNanos).orElse(null);
    CpuStats cpu = cpuNanos == null ? null : cpu(NODE, cpuNanos, now, next);
    String podsCgroup = options.podCgroups().root();
    CpuStats podsCpu =
        podsCgroup == null
            ? null
            : cpuNanos(podsCgroup.startsWith("/") ? podsCgroup.substring(1) : podsCgroup)
                .map(n -> cpu(PODS, n, now, next))
                .orElse(null);
    Read r =
        new Read(
            podStats,
            cpu,
            network(proc.interfaces(0), time),
            proc.bootTime().map(b -> time(Instant.ofEpochSecond(b))).orElse(null),
            podsCpu);
    samples = next;
    return r;
  }

  private Optional<Long> cpuNanos(String rel) {
    try {
      return Optional.of(cgroups.cpuNanos(rel));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The node: CPU and network as read once per TTL; memory, file systems, processes and the {@code
   * pods} system container from the node's reading, the eviction manager's latest.
   */
  private Summary.NodeStats node(Read r, NodeReading reading) {
    List<ContainerStats> system =
        reading.pods() == null
            ? null
            : List.of(
                new ContainerStats(
                    Summary.SYSTEM_CONTAINER_PODS,
                    null,
                    r.podsCpu(),
                    reading.pods().stats(),
                    null,
                    null));
    return new Summary.NodeStats(
        options.nodeName(),
        system,
        r.startTime(),
        new Summary.Usage(
            r.cpu(), reading.memory() == null ? null : reading.memory().stats(), r.network()),
        reading.fs() == null ? null : reading.fs().stats(),
        new Summary.RuntimeStats(reading.imageFs() == null ? null : reading.imageFs().stats()),
        reading.rlimit() == null ? null : reading.rlimit().stats());
  }

  private Optional<PodStats> pod(
      PodStatus p, Instant now, Map<String, Sample> next, Set<String> live) {
    Optional<SandboxStatus> sandbox =
        p.sandboxes().stream().filter(SandboxStatus::ready).findFirst();
    List<ContainerStatus> running = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (ContainerStatus c : p.containers()) { // newest first
      if (c.running() && names.add(c.name())) {
        running.add(c);
      }
    }
    if (sandbox.isEmpty() && running.isEmpty()) {
      return Optional.empty();
    }
    String time = time(now);
    Total total = new Total();
    List<ContainerStats> containers = new ArrayList<>();
    long processes = 0;
    for (ContainerStatus c : running) {
      live.add(c.id());
      Optional<Cgroups.Usage> u = cgroups.container(p.pod().uid(), c.id());
      u.ifPresent(total::add);
      processes += cgroups.pids(p.pod().uid(), c.id()).size();
      containers.add(
          new ContainerStats(
              c.name(),
              c.startedAt() == null ? null : time(c.startedAt()),
              u.map(x -> cpu(c.id(), x.cpuNanos(), now, next)).orElse(null),
              u.map(x -> memory(x, time)).orElse(null),
              storage.rootfs(c.id()),
              storage.logs(p.pod(), c.name())));
    }
    NetworkStats network = null;
    if (sandbox.isPresent()) {
      String id = sandbox.get().id();
      live.add(id);
      cgroups.container(p.pod().uid(), id).ifPresent(total::add);
      List<Long> sandboxPids = cgroups.pids(p.pod().uid(), id);
      processes += sandboxPids.size();
      network =
          sandboxPids.stream()
              .findFirst()
              .map(pid -> network(proc.interfaces(pid), time))
              .orElse(null);
    }
    Cgroups.Usage own = cgroups.pod(p.pod().uid()).orElse(total.any ? total.sum : null);
    var ref = new Summary.PodReference(p.pod().name(), p.pod().namespace(), p.pod().uid());
    List<VolumeStats> volumes = storage.volumes(p.pod().uid());
    // The sandbox's creation, else the oldest running container's (lazily: often none runs).
    Instant start =
        sandbox
            .map(SandboxStatus::createdAt)
            .orElseGet(() -> running.get(running.size() - 1).createdAt());
    return Optional.of(
        new PodStats(
            ref,
            start == null ? null : time(start),
            containers,
            new Summary.Usage(
                own == null ? null : cpu(p.pod().uid(), own.cpuNanos(), now, next),
                own == null ? null : memory(own, time),
                network),
            volumes.isEmpty() ? null : volumes,
            storage.ephemeral(volumes, containers, time),
            // The processes of the pod's cgroups (cAdvisor's process_count): PID pressure ranks on
            // it.
            total.any ? new Summary.ProcessStats(processes) : null));
  }

  /** A pod's usage: the sum over the cgroups found. Not thread-safe: one per pod and summary. */
  private static final class Total {
    Cgroups.Usage sum = new Cgroups.Usage(0, 0, 0, 0, 0, 0);
    boolean any;

    void add(Cgroups.Usage b) {
      Cgroups.Usage a = sum;
      sum =
          new Cgroups.Usage(
              a.cpuNanos() + b.cpuNanos(),
              a.memoryUsage() + b.memoryUsage(),
              a.workingSet() + b.workingSet(),
              a.rss() + b.rss(),
              a.pageFaults() + b.pageFaults(),
              a.majorPageFaults() + b.majorPageFaults());
      any = true;
    }
  }

  /** CPU stats for a key, with the rate since its previous sample when there is one. */
  private CpuStats cpu(String key, long cpuNanos, Instant now, Map<String, Sample> next) {
    next.put(key, new Sample(now, cpuNanos));
    Sample prev = samples.get(key);
    Long rate = null;
    if (prev != null && now.isAfter(prev.at()) && cpuNanos >= prev.cpuNanos()) {
      long elapsed = Duration.between(prev.at(), now).toNanos();
      rate = (long) ((cpuNanos - prev.cpuNanos()) * 1e9 / elapsed);
    }
    return new CpuStats(time(now), rate, cpuNanos);
  }

  private static MemoryStats memory(Cgroups.Usage u, String time) {
    return new MemoryStats(
        time, null, u.memoryUsage(), u.workingSet(), u.rss(), u.pageFaults(), u.majorPageFaults());
  }

  private static NetworkStats network(List<InterfaceStats> interfaces, String time) {
    if (interfaces.isEmpty()) {
      return null;
    }
    InterfaceStats first =
        interfaces.stream()
            .filter(i -> i.name().equals(DEFAULT_INTERFACE))
            .findFirst()
            .orElse(interfaces.get(0));
    return new NetworkStats(
        time,
        first.name(),
        first.rxBytes(),
        first.rxErrors(),
        first.txBytes(),
        first.txErrors(),
        interfaces);
  }

  /** The file system of {@code dir}, or of its nearest existing parent (not made yet). */
  static FsStats fs(Path dir, String time) {
    try {
      StatFs fs = StatFs.ofExisting(dir);
      return new FsStats(
          time,
          fs.availableBytes(),
          fs.capacityBytes(),
          fs.capacityBytes() - fs.freeBytes(),
          null,
          null,
          null);
    } catch (IOException | RuntimeException e) {
      log.debug("stats: cannot read the file system of {}: {}", dir, e.toString());
      return null;
    }
  }

  /** RFC 3339 at second precision, as Kubernetes' metav1.Time. */
  static String time(Instant t) {
    return Summary.time(t);
  }
}
