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
import io.jkubelet.agent.util.StatFs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
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
 * at most once a minute. Not yet reported: inodes of file systems.
 *
 * <p>Thread-safe: {@code lock} guards the cached summary and the previous CPU samples; scrapes that
 * come together wait for one reading.
 */
final class CgroupSummaryProvider implements SummaryProvider {
  private static final Logger log = LoggerFactory.getLogger(CgroupSummaryProvider.class);
  private static final String NODE = "/";
  private static final String DEFAULT_INTERFACE = "eth0";
  private static final Duration VOLUME_TTL = Duration.ofMinutes(1);

  private final StatsOptions options;
  private final Supplier<Collection<PodStatus>> pods;
  private final Clock clock;
  private final Cgroups cgroups;
  private final ProcFs proc;
  private final PodStorage storage;

  private final ReentrantLock lock = new ReentrantLock();
  private Summary cached;
  private Instant cachedAt;

  /** The previous CPU sample by key (a container id, a pod uid, or "/"): time and nanoseconds. */
  private Map<String, Sample> samples = new HashMap<>();

  private record Sample(Instant at, long cpuNanos) {}

  CgroupSummaryProvider(StatsOptions options, Supplier<Collection<PodStatus>> pods, Clock clock) {
    this.options = options;
    this.pods = pods;
    this.clock = clock;
    this.cgroups = new Cgroups(options.cgroupRoot(), options.podCgroups());
    this.proc = new ProcFs(options.procRoot());
    this.storage = new PodStorage(options, clock, VOLUME_TTL);
  }

  @Override
  public Summary summary() {
    lock.lock();
    try {
      Instant now = clock.instant();
      if (cached != null && Duration.between(cachedAt, now).compareTo(options.ttl()) < 0) {
        return cached;
      }
      return read(now, VOLUME_TTL);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Summary fresh(Duration diskMaxAge) {
    lock.lock();
    try {
      Duration age = diskMaxAge.compareTo(VOLUME_TTL) < 0 ? diskMaxAge : VOLUME_TTL;
      return read(clock.instant(), age);
    } finally {
      lock.unlock();
    }
  }

  /** Reads everything now, disk usage at most {@code diskMaxAge} old; under the lock. */
  private Summary read(Instant now, Duration diskMaxAge) {
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
    Summary s = new Summary(node(now, next), podStats);
    samples = next;
    cached = s;
    cachedAt = now;
    return s;
  }

  private Summary.NodeStats node(Instant now, Map<String, Sample> next) {
    String time = time(now);
    Optional<Cgroups.Usage> root = cgroups.root();
    Long cpuNanos =
        root.map(Cgroups.Usage::cpuNanos).filter(n -> n > 0).or(proc::cpuNanos).orElse(null);
    CpuStats cpu = cpuNanos == null ? null : cpu(NODE, cpuNanos, now, next);
    MemoryStats memory =
        root.filter(u -> u.memoryUsage() >= 0)
            .map(u -> memory(u, time, true))
            .orElseGet(() -> meminfo(time));
    FsStats fs = fs(options.rootDir(), time);
    Path images =
        options.imageFsDir() != null && Files.isDirectory(options.imageFsDir())
            ? options.imageFsDir()
            : options.rootDir();
    return new Summary.NodeStats(
        options.nodeName(),
        null,
        proc.bootTime().map(b -> time(Instant.ofEpochSecond(b))).orElse(null),
        cpu,
        memory,
        network(proc.interfaces(0), time),
        fs,
        new Summary.RuntimeStats(fs(images, time)),
        new Summary.RlimitStats(time, proc.pidMax(), proc.tasks()));
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
              u.map(x -> memory(x, time, false)).orElse(null),
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
            own == null ? null : cpu(p.pod().uid(), own.cpuNanos(), now, next),
            own == null ? null : memory(own, time, false),
            network,
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

  private MemoryStats memory(Cgroups.Usage u, String time, boolean node) {
    Long available =
        node && options.memoryCapacityBytes() > 0
            ? Math.max(0, options.memoryCapacityBytes() - u.workingSet())
            : null;
    return new MemoryStats(
        time,
        available,
        u.memoryUsage(),
        u.workingSet(),
        u.rss(),
        u.pageFaults(),
        u.majorPageFaults());
  }

  /** The node's memory from /proc/meminfo, where the root cgroup has none (cgroup v2). */
  private MemoryStats meminfo(String time) {
    Map<String, Long> m = proc.meminfo();
    Long total = m.get("MemTotal");
    Long free = m.get("MemFree");
    if (total == null || free == null) {
      return null;
    }
    long usage = total - free;
    long workingSet = Math.max(0, usage - m.getOrDefault("Inactive(file)", 0L));
    long capacity = options.memoryCapacityBytes() > 0 ? options.memoryCapacityBytes() : total;
    return new MemoryStats(
        time,
        Math.max(0, capacity - workingSet),
        usage,
        workingSet,
        m.get("AnonPages"),
        null,
        null);
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
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
