package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one watch per object, as upstream's {@code watch_based_manager.go}: a list and watch with
 * a field selector on {@code metadata.name}, which is what the Node authorizer lets a node read of
 * its pods' secrets and configMaps. Tests pass a fake.
 */
@FunctionalInterface
interface ObjectWatches {

  /** One object's cache, fed by its watch. Thread-safe. */
  interface Watch {
    /** Whether the initial list has arrived, so that {@link #get} answers for the server. */
    boolean synced();

    /** The object as last seen, or empty when it does not exist. */
    Optional<HasMetadata> get();

    /** Whether the watch could not start (e.g. forbidden, not yet authorized) and gave up. */
    default boolean failed() {
      return false;
    }

    void stop();
  }

  /**
   * Starts watching the object; {@code changed} runs on the watch's thread whenever it is added,
   * changed (a new resourceVersion) or deleted. Never blocks on the API server.
   */
  Watch watch(ObjectRefs.Ref ref, Runnable changed);

  /** Informers of fabric8, each with a field selector on the object's name. */
  static ObjectWatches fabric8(KubernetesClient client) {
    return (ref, changed) -> {
      MixedOperation<? extends HasMetadata, ?, ?> objects =
          switch (ref.kind()) {
            case SECRET -> client.secrets();
            case CONFIG_MAP -> client.configMaps();
          };
      SharedIndexInformer<? extends HasMetadata> informer =
          objects
              .inNamespace(ref.namespace())
              .withField("metadata.name", ref.name())
              .runnableInformer(0);
      return new Fabric8Watch<>(informer, ref, changed);
    };
  }

  /** An informer that calls back on every change. */
  final class Fabric8Watch<T extends HasMetadata> implements Watch {
    private static final Logger log = LoggerFactory.getLogger(Fabric8Watch.class);
    private final SharedIndexInformer<T> informer;
    private volatile boolean failed;

    Fabric8Watch(SharedIndexInformer<T> informer, ObjectRefs.Ref ref, Runnable changed) {
      this.informer = informer;
      informer.addEventHandler(
          new ResourceEventHandler<T>() {
            @Override
            public void onAdd(T obj) {
              changed.run();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
              if (!Objects.equals(
                  oldObj.getMetadata().getResourceVersion(),
                  newObj.getMetadata().getResourceVersion())) {
                changed.run();
              }
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
              changed.run();
            }
          });
      informer
          .start()
          .whenComplete(
              (ok, e) -> {
                if (e != null) {
                  failed = true;
                  log.warn("PodObjects: cannot watch {} (will retry): {}", ref, e.getMessage());
                }
              });
    }

    @Override
    public boolean synced() {
      return informer.hasSynced();
    }

    @Override
    public Optional<HasMetadata> get() {
      return informer.getStore().list().stream().findFirst().map(HasMetadata.class::cast);
    }

    @Override
    public boolean failed() {
      return failed;
    }

    @Override
    public void stop() {
      informer.stop();
    }
  }
}
