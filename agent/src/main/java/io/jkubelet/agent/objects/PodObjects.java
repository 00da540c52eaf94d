package io.jkubelet.agent.objects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.jkubelet.agent.util.Lifecycle;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The secrets, configMaps and services that the node's pods refer to. Volumes, the environment and
 * image pulls read them through this one edge, so that one cache (and one watch per object) serves
 * them all.
 *
 * <p>Pods are registered while the node runs them, so that the implementation knows which objects
 * to keep fresh; the Node authorizer lets a node read only those.
 */
public interface PodObjects extends Lifecycle {

  /**
   * The secret, or empty when it does not exist.
   *
   * @throws Unavailable when it cannot be read now (no API server, refused, unreachable)
   */
  Optional<Secret> secret(String namespace, String name) throws Unavailable;

  /** The configMap, or empty when it does not exist; else as {@link #secret}. */
  Optional<ConfigMap> configMap(String namespace, String name) throws Unavailable;

  /** Every service of the cluster, for the service environment variables; empty standalone. */
  List<Service> services();

  /** The node runs this pod (again, or an update of it): its objects are kept fresh. */
  void register(Pod pod);

  /** The node no longer runs this pod: objects only it used may be forgotten. */
  void unregister(Pod pod);

  /**
   * Who to tell, with the UIDs of the pods that use it, when a watched object changes; set once,
   * before {@link #start}. The default watches nothing and never calls.
   */
  default void onChange(Consumer<Set<String>> podUids) {}

  /** An object that cannot be read now; the message says why, for the pod's event. */
  final class Unavailable extends Exception {
    public Unavailable(String message) {
      super(message);
    }
  }

  /** Standalone mode: there is no API server to read from. */
  PodObjects NONE = new NoPodObjects();
}
