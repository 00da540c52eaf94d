package io.jkubelet.agent.podconfig;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.jkubelet.agent.util.Lifecycle;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods the API server binds to this node ({@code spec.nodeName=<node>}), listed and watched
 * through a fabric8 informer. After every change, the informer's whole store goes to the merge as
 * the {@code api} source's full set; the merge works out what changed. The informer relists and
 * rewatches by itself after the API server restarts or a watch times out.
 *
 * <p>Thread-safe: the informer calls the handler on its own thread, one event at a time.
 */
public final class ApiSource implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(ApiSource.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final Consumer<List<Pod>> sink;
  private SharedIndexInformer<Pod> informer;

  public ApiSource(KubernetesClient client, String nodeName, Consumer<List<Pod>> sink) {
    this.client = client;
    this.nodeName = nodeName;
    this.sink = sink;
  }

  @Override
  public void start() {
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", nodeName)
            .runnableInformer(0)
            .itemStore(new LeanPodStore());
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            send();
          }

          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            send();
          }

          @Override
          public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
            send();
          }
        });
    informer.exceptionHandler(
        (isStarted, t) -> {
          log.warn(
              "API source: watch of pods on node {} failed ({}); retrying", nodeName, t.toString());
          return true; // keep retrying: the API server may be down for a while
        });
    informer
        .start()
        .whenComplete(
            (ok, err) -> {
              if (err == null) {
                log.info("API source: synced the pods bound to node {}", nodeName);
                send(); // the first full set, even when empty, so the source counts as seen
              }
            });
  }

  private void send() {
    if (!informer.hasSynced()) {
      return; // the initial list is still arriving; the completion sends it whole
    }
    List<Pod> pods =
        informer.getStore().list().stream()
            .sorted(Comparator.comparing(PodConfig::fullName))
            .toList();
    sink.accept(pods);
  }

  @Override
  public void stop() {
    if (informer != null) {
      informer.stop();
    }
  }

  @Override
  public Health healthy() {
    if (informer == null || !informer.isRunning()) {
      return Health.failing("API source is not running");
    }
    return informer.isWatching()
        ? Health.OK
        : Health.failing("API source is not watching pods (API server unreachable?)");
  }

  /**
   * The informer's store, keeping each pod without its {@code managedFields}: the API server's
   * record of which client set which field, which nothing in jkubelet reads, deserialized as nested
   * maps of every field the pod's writers set (at 110 pods, a large part of the maps in the heap).
   * The pods that the handlers and the merge see are these same objects.
   */
  private static final class LeanPodStore extends BasicItemStore<Pod> {
    LeanPodStore() {
      super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public Pod put(String key, Pod pod) {
      if (pod.getMetadata() != null) {
        pod.getMetadata().setManagedFields(null);
      }
      return super.put(key, pod);
    }
  }
}
