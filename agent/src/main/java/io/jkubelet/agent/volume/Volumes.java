package io.jkubelet.agent.volume;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.util.Errors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link VolumeManager}: each volume goes to the plugin that supports it, in {@code
 * <root-dir>/pods/<uid>/volumes/<plugin>/<name>}. Thread-safe: the plugins keep no per-pod state.
 */
final class Volumes implements VolumeManager {
  private static final Logger log = LoggerFactory.getLogger(Volumes.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path rootDir;
  private final Mounter mounter;
  private final EventRecorder recorder;
  private final TokenManager tokens;
  private final List<VolumePlugin> plugins;
  private final java.time.Clock clock;
  private final Map<String, TeardownFailure> teardowns = new ConcurrentHashMap<>();
  private volatile boolean rootShared;

  Volumes(Options o) {
    this.rootDir = o.rootDir();
    this.mounter = o.mounter();
    this.recorder = o.recorder();
    this.clock = o.clock();
    this.tokens = new TokenManager(o.tokens(), o.clock());
    Sources sources = new Sources(o.objects(), tokens, o.allocatable());
    Projector projector = new Projector(o.mounter(), o.recorder(), o.clock());
    List<VolumePlugin> all = new ArrayList<>();
    all.add(new EmptyDirPlugin(o.mounter()));
    all.add(new HostPathPlugin());
    all.addAll(ProjectingPlugin.all(sources, projector));
    this.plugins = List.copyOf(all);
  }

  @Override
  public Path podDir(String uid) {
    return rootDir.resolve("pods").resolve(uid);
  }

  @Override
  public Map<String, Path> setUp(Pod pod) throws MountFailure {
    Map<String, Path> paths = new HashMap<>();
    MountFailure first = null;
    for (Volume v :
        pod.getSpec().getVolumes() == null ? List.<Volume>of() : pod.getSpec().getVolumes()) {
      try {
        paths.put(v.getName(), setUp(pod, v));
      } catch (MountFailure e) {
        recorder.event(Refs.pod(pod), EventType.Warning, Reasons.FAILED_MOUNT, e.eventMessage());
        log.warn(
            "Volumes: pod {}/{}: {}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            e.eventMessage());
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
    return paths;
  }

  private Path setUp(Pod pod, Volume v) throws MountFailure {
    if (v.getHostPath() == null && propagates(pod, v.getName())) {
      shareRootDir(v.getName());
    }
    for (VolumePlugin p : plugins) {
      if (p.canSupport(v)) {
        Path dir =
            podDir(pod.getMetadata().getUid())
                .resolve("volumes")
                .resolve(p.dirName())
                .resolve(v.getName());
        return p.setUp(pod, v, dir);
      }
    }
    throw new MountFailure(
        v.getName(), "volume type \"" + type(v) + "\" is not supported by jkubelet");
  }

  /**
   * Whether a container mounts the volume with {@code HostToContainer} or {@code Bidirectional}.
   */
  private static boolean propagates(Pod pod, String volume) {
    return Stream.concat(
            nonNull(pod.getSpec().getInitContainers()).stream(),
            nonNull(pod.getSpec().getContainers()).stream())
        .flatMap(c -> nonNull(c.getVolumeMounts()).stream())
        .anyMatch(
            m ->
                volume.equals(m.getName())
                    && m.getMountPropagation() != null
                    && !m.getMountPropagation().equals("None"));
  }

  private static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }

  /**
   * Makes the root dir rshared, as upstream's kubelet does at start, the first time a pod asks for
   * propagation from a volume below it: the engine refuses an rslave or rshared bind whose source
   * is on a private mount, which the root dir is on hosts without systemd's shared root.
   */
  private void shareRootDir(String volume) throws MountFailure {
    if (rootShared) {
      return;
    }
    synchronized (this) {
      try {
        Files.createDirectories(rootDir);
        mounter.makeRShared(rootDir);
        rootShared = true;
      } catch (IOException e) {
        throw Errors.withCause(
            new MountFailure(
                volume,
                "mountPropagation needs the root dir "
                    + rootDir
                    + " on a shared mount, and making it rshared failed: "
                    + e.getMessage()),
            e);
      }
    }
  }

  /** The volume's source field, e.g. {@code persistentVolumeClaim}. */
  static String type(Volume v) {
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> m = JSON.convertValue(v, Map.class);
      return m.keySet().stream()
          .filter(k -> !k.equals("name") && m.get(k) != null)
          .findFirst()
          .orElse("unknown");
    } catch (IllegalArgumentException e) {
      return "unknown";
    }
  }

  @Override
  public void cleanUp(String uid) throws IOException {
    Path dir = podDir(uid);
    tokens.forget(uid);
    Path at = dir;
    try {
      for (Path mount : mounter.mountsUnder(dir)) {
        at = mount;
        mounter.unmount(mount);
        log.debug("Volumes: unmounted {}", mount);
      }
      at = dir;
      AtomicWriter.deleteTree(dir);
    } catch (IOException e) {
      String volume =
          volumeOf(
              dir,
              e instanceof java.nio.file.FileSystemException f && f.getFile() != null
                  ? Path.of(f.getFile())
                  : at);
      String error = e.getMessage() == null ? e.toString() : e.getMessage();
      teardowns.compute(
          uid,
          (k, old) ->
              new TeardownFailure(
                  volume,
                  error,
                  old != null && old.volume().equals(volume) ? old.since() : clock.instant()));
      throw e;
    }
    teardowns.remove(uid);
  }

  @Override
  public Optional<TeardownFailure> teardownFailure(String uid) {
    return Optional.ofNullable(teardowns.get(uid));
  }

  /**
   * The volume a path below the pod's directory belongs to ({@code volumes/<plugin>/<name>/...}),
   * else the path relative to the pod's directory.
   */
  static String volumeOf(Path podDir, Path p) {
    Path abs = p.toAbsolutePath().normalize();
    Path base = podDir.toAbsolutePath().normalize();
    if (!abs.startsWith(base)) {
      return abs.toString();
    }
    Path rel = base.relativize(abs);
    if (rel.getNameCount() >= 3 && rel.getName(0).toString().equals("volumes")) {
      return rel.getName(2).toString();
    }
    return rel.toString().isEmpty() ? "." : rel.toString();
  }

  static Long fsGroup(Pod pod) {
    var sc = pod.getSpec().getSecurityContext();
    return sc == null ? null : sc.getFsGroup();
  }

  static String fsGroupChangePolicy(Pod pod) {
    var sc = pod.getSpec().getSecurityContext();
    return sc == null ? null : sc.getFsGroupChangePolicy();
  }
}
