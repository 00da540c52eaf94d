package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code Watch} strategy ({@code pkg/kubelet/util/manager/watch_based_manager.go}): each
 * secret or configMap that a registered pod refers to has one watch, with a field selector on its
 * name, shared by every pod that uses it; it starts with the first such pod and stops with the
 * last. Reads answer from the watch's cache once it has synced, and from a GET before (one GET for
 * the reads of an object that overlap in time). When an object changes, the pods that use it are
 * reported to the {@link #onChange} listener, so they sync at once and their volumes follow.
 *
 * <p>Services come from one informer over all namespaces (the node may list and watch them), or a
 * list while it has not synced.
 *
 * <p>Thread-safe: {@code lock} guards {@code entries} and {@code podRefs}; the listener is called
 * outside it, from the watches' threads.
 */
public final class WatchPodObjects implements PodObjects {
  private static final Logger log = LoggerFactory.getLogger(WatchPodObjects.class);

  private final KubernetesClient client;
  private final ObjectWatches watches;
  private final PodObjects gets;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<ObjectRefs.Ref, Entry> entries = new HashMap<>();
  private final Map<String, Set<ObjectRefs.Ref>> podRefs = new HashMap<>();
  private final Map<ObjectRefs.Ref, CompletableFuture<Optional<? extends HasMetadata>>> inFlight =
      new ConcurrentHashMap<>();
  private volatile Consumer<Set<String>> listener = uids -> {};
  private volatile SharedIndexInformer<Service> services;
  private volatile boolean started;

  /** A watched object and the pods (by UID) that use it. */
  private static final class Entry {
    final Set<String> pods = new HashSet<>();
    ObjectWatches.Watch watch;
  }

  /** Watches and reads through {@code client}. */
  public static WatchPodObjects create(KubernetesClient client) {
    return new WatchPodObjects(client, ObjectWatches.fabric8(client), new ApiPodObjects(client));
  }

  WatchPodObjects(KubernetesClient client, ObjectWatches watches, PodObjects gets) {
    this.client = client;
    this.watches = watches;
    this.gets = gets;
  }

  @Override
  public void onChange(Consumer<Set<String>> podUids) {
    this.listener = podUids;
  }

  @Override
  public Optional<Secret> secret(String namespace, String name) throws Unavailable {
    return read(ObjectRefs.Kind.SECRET, namespace, name, () -> gets.secret(namespace, name))
        .map(Secret.class::cast);
  }

  @Override
  public Optional<ConfigMap> configMap(String namespace, String name) throws Unavailable {
    return read(ObjectRefs.Kind.CONFIG_MAP, namespace, name, () -> gets.configMap(namespace, name))
        .map(ConfigMap.class::cast);
  }

  /** The watched object when its watch has synced, else the one shared GET's answer. */
  private Optional<? extends HasMetadata> read(
      ObjectRefs.Kind kind, String namespace, String name, Get get) throws Unavailable {
    var ref = new ObjectRefs.Ref(kind, namespace, name);
    var cached = cached(ref);
    return cached != null ? cached : shared(ref, get);
  }

  /** A GET of one object. */
  @FunctionalInterface
  private interface Get {
    Optional<? extends HasMetadata> get() throws Unavailable;
  }

  /**
   * The GET's answer, one request for the reads of an object that overlap in time: after a restart
   * every pod that uses the namespace's token secret syncs at once, before the secret's watch has
   * synced, and each read was a GET (39 of one secret in 3 s at 110 pods, each a connection of the
   * client's pool and its TLS handshake while every pod started). A read that comes while another's
   * GET is in flight takes that GET's answer, or its failure.
   */
  private Optional<? extends HasMetadata> shared(ObjectRefs.Ref ref, Get get) throws Unavailable {
    CompletableFuture<Optional<? extends HasMetadata>> mine = new CompletableFuture<>();
    CompletableFuture<Optional<? extends HasMetadata>> theirs = inFlight.putIfAbsent(ref, mine);
    if (theirs != null) {
      try {
        return theirs.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof Unavailable u) {
          throw u;
        }
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
    }
    try {
      Optional<? extends HasMetadata> got = get.get();
      mine.complete(got);
      return got;
    } catch (Unavailable | RuntimeException e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(ref, mine);
    }
  }

  /**
   * The watch's answer, or null when there is no synced watch. A watch that failed to start (the
   * Node authorizer may not know of the pod yet) is started again, and the caller GETs meanwhile.
   */
  private Optional<HasMetadata> cached(ObjectRefs.Ref ref) {
    ObjectWatches.Watch w;
    lock.lock();
    try {
      Entry e = entries.get(ref);
      if (e != null && e.watch.failed()) {
        e.watch.stop();
        e.watch = watches.watch(ref, () -> changed(ref));
      }
      w = e == null ? null : e.watch;
    } finally {
      lock.unlock();
    }
    return w != null && w.synced() ? w.get() : null;
  }

  @Override
  public List<Service> services() {
    SharedIndexInformer<Service> s = services;
    if (s != null && s.hasSynced()) {
      return s.getStore().list();
    }
    return gets.services();
  }

  @Override
  public void register(Pod pod) {
    String uid = pod.getMetadata().getUid();
    Set<ObjectRefs.Ref> now = ObjectRefs.of(pod);
    lock.lock();
    try {
      Set<ObjectRefs.Ref> before = podRefs.getOrDefault(uid, Set.of());
      for (ObjectRefs.Ref ref : now) {
        if (!before.contains(ref)) {
          acquire(ref, uid);
        }
      }
      for (ObjectRefs.Ref ref : before) {
        if (!now.contains(ref)) {
          release(ref, uid);
        }
      }
      if (now.isEmpty()) {
        podRefs.remove(uid);
      } else {
        podRefs.put(uid, now);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void unregister(Pod pod) {
    String uid = pod.getMetadata().getUid();
    lock.lock();
    try {
      for (ObjectRefs.Ref ref : podRefs.getOrDefault(uid, Set.of())) {
        release(ref, uid);
      }
      podRefs.remove(uid);
    } finally {
      lock.unlock();
    }
  }

  /** Guarded by lock. */
  private void acquire(ObjectRefs.Ref ref, String uid) {
    Entry e = entries.computeIfAbsent(ref, r -> new Entry());
    e.pods.add(uid);
    if (e.watch == null) {
      log.debug("PodObjects: watching {}", ref);
      e.watch = watches.watch(ref, () -> changed(ref));
    }
  }

  /** Guarded by lock. */
  private void release(ObjectRefs.Ref ref, String uid) {
    Entry e = entries.get(ref);
    if (e == null) {
      return;
    }
    e.pods.remove(uid);
    if (e.pods.isEmpty()) {
      entries.remove(ref);
      log.debug("PodObjects: no pod uses {} any more; its watch stops", ref);
      e.watch.stop();
    }
  }

  private void changed(ObjectRefs.Ref ref) {
    Set<String> uids;
    lock.lock();
    try {
      Entry e = entries.get(ref);
      uids = e == null ? Set.of() : Set.copyOf(e.pods);
    } finally {
      lock.unlock();
    }
    if (!uids.isEmpty()) {
      log.debug("PodObjects: {} changed; syncing {} pods", ref, uids.size());
      listener.accept(uids);
    }
  }

  /** How many GETs are in flight; for tests. */
  int getsInFlight() {
    return inFlight.size();
  }

  /** How many objects are watched; for tests. */
  int watched() {
    lock.lock();
    try {
      return entries.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void start() {
    if (started) {
      return;
    }
    started = true;
    gets.start();
    SharedIndexInformer<Service> s = client.services().inAnyNamespace().runnableInformer(0);
    s.start()
        .whenComplete(
            (ok, e) -> {
              if (e != null) {
                log.warn("PodObjects: cannot watch services: {}", e.getMessage());
              }
            });
    services = s;
  }

  @Override
  public void stop() {
    started = false;
    SharedIndexInformer<Service> s = services;
    if (s != null) {
      s.stop();
    }
    lock.lock();
    try {
      entries.values().forEach(e -> e.watch.stop());
      entries.clear();
      podRefs.clear();
    } finally {
      lock.unlock();
    }
    gets.stop();
  }

  @Override
  public Health healthy() {
    return started ? Health.OK : Health.failing("not started");
  }
}
