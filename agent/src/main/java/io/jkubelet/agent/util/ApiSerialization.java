package io.jkubelet.agent.util;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretList;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's JSON mapping of API objects, one for the whole process: every API client and {@link
 * Canonical} use it, so that Jackson's per-type (de)serializers are built once, not once per
 * client.
 *
 * <p>It knows by kind only the kinds that reach jkubelet inside watch events, where the JSON alone
 * says what an object is. Left to itself, fabric8 finds every kind it ships on the class path at
 * the first watch event and loads each kind's classes (about 500 more classes here, several MiB of
 * class metadata and heap kept for the life of the process). An object of another kind in a watch
 * event reads as a {@code GenericKubernetesResource}; typed requests ({@code get}, {@code list},
 * {@code patch}) are not affected.
 *
 * <p>fabric8 reads each response on the HTTP engine's event loop, and Jackson builds a type's
 * reader, with every class it reaches, the first time it reads one: seconds on a slow CPU, and on a
 * guest under emulation two minutes with an event loop blocked (every request on it timed out, and
 * a node's registration missed kubeadm's join window). {@link #warmUpInBackground} builds the
 * readers of the API's responses on a thread of its own while the agent is being built.
 */
public final class ApiSerialization {
  /** The kinds jkubelet watches (and Status, which a watch sends for an error). */
  static final List<Class<? extends KubernetesResource>> WATCHED_KINDS =
      List.of(
          Pod.class,
          Node.class,
          Secret.class,
          ConfigMap.class,
          Service.class,
          Event.class,
          io.fabric8.kubernetes.api.model.events.v1.Event.class,
          Lease.class,
          io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest.class,
          Status.class);

  /**
   * The types of the API's responses to jkubelet: the kinds it watches, the lists it lists, the
   * watch events. Reading one builds the readers of every type it holds.
   */
  static final List<Class<?>> READ_TYPES = readTypes();

  /** Shared and thread-safe. */
  public static final KubernetesSerialization SHARED = create();

  private static final Logger log = LoggerFactory.getLogger(ApiSerialization.class);
  private static final AtomicBoolean warming = new AtomicBoolean();

  private ApiSerialization() {}

  /**
   * Builds the readers of {@link #READ_TYPES} on a daemon platform thread, once per process;
   * returns at once. A response read meanwhile waits for the reader being built (Jackson's lock),
   * rather than building it on the event loop. Not a virtual thread: the work is class loading and
   * reflection, which would pin a carrier of the agent's other virtual threads for its whole run.
   */
  public static void warmUpInBackground() {
    if (warming.compareAndSet(false, true)) {
      Thread.ofPlatform()
          .daemon()
          .name("api-serialization-warm-up")
          .start(ApiSerialization::warmUp);
    }
  }

  /** Reads an empty object of each of {@link #READ_TYPES}; returns how many were read. */
  static int warmUp() {
    long started = System.nanoTime();
    int read = 0;
    for (Class<?> type : READ_TYPES) {
      try {
        SHARED.unmarshal("{}", type);
        read++;
      } catch (RuntimeException e) {
        log.debug("API serialization: cannot warm up {}: {}", type.getSimpleName(), e.toString());
      }
    }
    log.debug(
        "API serialization: readers of {} types built in {} ms",
        read,
        (System.nanoTime() - started) / 1_000_000);
    return read;
  }

  private static List<Class<?>> readTypes() {
    List<Class<?>> types = new java.util.ArrayList<>(WATCHED_KINDS);
    types.addAll(
        List.of(
            WatchEvent.class,
            PodList.class,
            SecretList.class,
            ConfigMapList.class,
            ServiceList.class));
    return List.copyOf(types);
  }

  private static KubernetesSerialization create() {
    KubernetesSerialization s = new KubernetesSerialization(new ObjectMapper(), false);
    WATCHED_KINDS.forEach(s::registerKubernetesResource);
    return s;
  }
}
