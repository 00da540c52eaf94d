package io.jkubelet.agent.util;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;

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

  /** Shared and thread-safe. */
  public static final KubernetesSerialization SHARED = create();

  private ApiSerialization() {}

  private static KubernetesSerialization create() {
    KubernetesSerialization s = new KubernetesSerialization(new ObjectMapper(), false);
    WATCHED_KINDS.forEach(s::registerKubernetesResource);
    return s;
  }
}
