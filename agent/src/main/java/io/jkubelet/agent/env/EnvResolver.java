package io.jkubelet.agent.env;

import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.jkubelet.agent.objects.PodObjects;
import io.jkubelet.agent.podconfig.Annotations;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a container's environment as upstream's {@code makeEnvironmentVariables}:
 *
 * <ol>
 *   <li>{@code envFrom} first, ConfigMaps and Secrets with their {@code prefix}; keys that are not
 *       valid variable names are skipped with a warning (upstream's {@code
 *       InvalidEnvironmentVariableNames} event);
 *   <li>then {@code env} in order, overriding: a value with {@code $(VAR)} expanded against what is
 *       defined so far and the service variables; else its source ({@code fieldRef}, {@code
 *       resourceFieldRef}, {@code configMapKeyRef}, {@code secretKeyRef}). A missing optional
 *       object or key leaves the variable out; a missing required one fails with upstream's
 *       message;
 *   <li>then the service variables that the container does not define itself.
 * </ol>
 *
 * Each object is read once per container. Thread-safe: it keeps no state of its own, and {@link
 * PodObjects} is thread-safe.
 */
public final class EnvResolver {
  private static final Logger log = LoggerFactory.getLogger(EnvResolver.class);
  private static final Pattern ENV_VAR_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");

  private final PodObjects objects;
  private final NodeAllocatable node;

  public EnvResolver(PodObjects objects, NodeAllocatable node) {
    this.objects = objects;
    this.node = node;
  }

  /**
   * The environment, in order, and the warnings to record on the pod (reason {@code
   * InvalidEnvironmentVariableNames}).
   */
  public record Resolved(List<EnvVar> env, List<String> warnings) {
    public Resolved {
      env = List.copyOf(env);
      warnings = List.copyOf(warnings);
    }

    /** The environment as a map, for expanding {@code command} and {@code args}. */
    public Map<String, String> asMap() {
      Map<String, String> m = new LinkedHashMap<>();
      env.forEach(e -> m.put(e.getName(), e.getValue()));
      return m;
    }
  }

  /** Resolves the container's environment; see the class comment. */
  public Resolved resolve(Pod pod, Container c, DownwardApi.Addresses at) throws EnvException {
    String ns = pod.getMetadata().getNamespace();
    Map<String, String> serviceEnv = new LinkedHashMap<>(services(pod));
    Sources sources = new Sources(ns);
    Map<String, String> env = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    if (c.getEnvFrom() != null) {
      for (EnvFromSource from : c.getEnvFrom()) {
        envFrom(from, sources, env).ifPresent(warnings::add);
      }
    }
    UnaryOperator<String> mapping = Expansion.mappingFor(env, serviceEnv);
    if (c.getEnv() != null) {
      for (EnvVar e : c.getEnv()) {
        Optional<String> value = value(pod, c, e, at, sources, mapping);
        if (value.isEmpty()) {
          continue; // an optional source that is missing
        }
        serviceEnv.remove(e.getName());
        env.put(e.getName(), value.get());
      }
    }
    List<EnvVar> out = new ArrayList<>();
    env.forEach((k, v) -> out.add(new EnvVar(k, v, null)));
    serviceEnv.forEach(
        (k, v) -> {
          if (!env.containsKey(k)) {
            out.add(new EnvVar(k, v, null));
          }
        });
    return new Resolved(out, warnings);
  }

  /**
   * The service variables. When the services cannot be read (the API server is not there), a static
   * pod gets none and starts: a control plane that runs as static pods, as {@code kubeadm init}
   * makes it, starts the very API server the services come from. Upstream v1.20 reads its service
   * cache, which is empty then, and later versions start static pods without waiting for it. Any
   * other pod fails to start with upstream's message and is retried.
   */
  private Map<String, String> services(Pod pod) throws EnvException {
    List<Service> services;
    try {
      services = objects.services();
    } catch (RuntimeException e) {
      if (!Annotations.isStatic(pod)) {
        throw new EnvException("failed to list services when setting up env vars");
      }
      log.debug(
          "Env: static pod {}/{} starts without service variables: services cannot be read ({})",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      services = List.of();
    }
    return ServiceEnv.forNamespace(
        services,
        pod.getMetadata().getNamespace(),
        !Boolean.FALSE.equals(pod.getSpec().getEnableServiceLinks()));
  }

  /** Adds one {@code envFrom} source's keys; a warning naming the invalid keys, if any. */
  private Optional<String> envFrom(EnvFromSource from, Sources sources, Map<String, String> env)
      throws EnvException {
    String prefix = from.getPrefix() == null ? "" : from.getPrefix();
    Kind kind;
    String name;
    Boolean optional;
    if (from.getConfigMapRef() != null) {
      kind = Kind.CONFIG_MAP;
      name = from.getConfigMapRef().getName();
      optional = from.getConfigMapRef().getOptional();
    } else if (from.getSecretRef() != null) {
      kind = Kind.SECRET;
      name = from.getSecretRef().getName();
      optional = from.getSecretRef().getOptional();
    } else {
      return Optional.empty();
    }
    Optional<Map<String, String>> data = sources.data(kind, name, Boolean.TRUE.equals(optional));
    if (data.isEmpty()) {
      return Optional.empty();
    }
    List<String> invalid = new ArrayList<>();
    new TreeMap<>(data.get())
        .forEach(
            (k, v) -> {
              String key = prefix + k;
              if (isEnvVarName(key)) {
                env.put(key, v == null ? "" : v);
              } else {
                invalid.add(key);
              }
            });
    if (invalid.isEmpty()) {
      return Optional.empty();
    }
    invalid.sort(null);
    return Optional.of(
        String.format(
            "Keys [%s] from the EnvFrom %s %s/%s were skipped since they are considered invalid"
                + " environment variable names.",
            String.join(", ", invalid), kind.field, sources.namespace, name));
  }

  /** One {@code env} entry's value; empty when an optional source is missing. */
  private Optional<String> value(
      Pod pod,
      Container c,
      EnvVar e,
      DownwardApi.Addresses at,
      Sources sources,
      UnaryOperator<String> mapping)
      throws EnvException {
    if (e.getValue() != null && !e.getValue().isEmpty()) {
      return Optional.of(Expansion.expand(e.getValue(), mapping));
    }
    EnvVarSource from = e.getValueFrom();
    if (from == null) {
      return Optional.of("");
    }
    if (from.getFieldRef() != null) {
      return Optional.of(DownwardApi.field(pod, from.getFieldRef(), at));
    }
    if (from.getResourceFieldRef() != null) {
      return Optional.of(DownwardApi.resource(pod, c, from.getResourceFieldRef(), node));
    }
    if (from.getConfigMapKeyRef() != null) {
      ConfigMapKeySelector ref = from.getConfigMapKeyRef();
      return sources.key(Kind.CONFIG_MAP, ref.getName(), ref.getKey(), ref.getOptional());
    }
    if (from.getSecretKeyRef() != null) {
      SecretKeySelector ref = from.getSecretKeyRef();
      return sources.key(Kind.SECRET, ref.getName(), ref.getKey(), ref.getOptional());
    }
    return Optional.of("");
  }

  /** A secret's data, decoded from base64 (and its {@code stringData}, which static pods carry). */
  static Map<String, String> decoded(Secret s) {
    Map<String, String> out = new HashMap<>();
    if (s.getStringData() != null) {
      s.getStringData().forEach((k, v) -> out.put(k, nullToEmpty(v)));
    }
    if (s.getData() != null) {
      s.getData()
          .forEach(
              (k, v) ->
                  out.put(
                      k,
                      v == null
                          ? ""
                          : new String(Base64.getMimeDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    return out;
  }

  /** Upstream's {@code IsEnvVarName}. */
  public static boolean isEnvVarName(String s) {
    return ENV_VAR_NAME.matcher(s).matches() && !s.equals(".") && !s.startsWith("..");
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  /** The kinds of object the environment takes keys from, by their names in messages. */
  private enum Kind {
    CONFIG_MAP("configMap", "ConfigMap"),
    SECRET("secret", "Secret");

    final String field;
    final String type;

    Kind(String field, String type) {
      this.field = field;
      this.type = type;
    }

    /** The object's data as strings (a secret's decoded); empty when it does not exist. */
    Optional<Map<String, String>> read(PodObjects objects, String namespace, String name)
        throws PodObjects.Unavailable {
      return switch (this) {
        case CONFIG_MAP ->
            objects
                .configMap(namespace, name)
                .map(cm -> cm.getData() == null ? Map.<String, String>of() : cm.getData());
        case SECRET -> objects.secret(namespace, name).map(EnvResolver::decoded);
      };
    }
  }

  /** The ConfigMaps and Secrets of one container's environment, each read at most once. */
  private final class Sources {
    final String namespace;
    private final Map<Kind, Map<String, Optional<Map<String, String>>>> read =
        new EnumMap<>(Kind.class);

    Sources(String namespace) {
      this.namespace = namespace;
    }

    /** The object's data; empty when an optional one does not exist. */
    Optional<Map<String, String>> data(Kind kind, String name, boolean optional)
        throws EnvException {
      Map<String, Optional<Map<String, String>>> ofKind =
          read.computeIfAbsent(kind, k -> new HashMap<>());
      Optional<Map<String, String>> data = ofKind.get(name);
      if (data == null) {
        if (objects == PodObjects.NONE) {
          throw new EnvException(
              "couldn't get "
                  + kind.field
                  + " "
                  + namespace
                  + "/"
                  + name
                  + ", no kubeClient defined");
        }
        try {
          data = kind.read(objects, namespace, name);
        } catch (PodObjects.Unavailable e) {
          throw new EnvException(e.getMessage());
        }
        ofKind.put(name, data);
      }
      if (data.isEmpty() && !optional) {
        throw new EnvException(kind.field.toLowerCase(Locale.ROOT) + " \"" + name + "\" not found");
      }
      return data;
    }

    /** A key reference's value; empty when an optional object or key is missing. */
    Optional<String> key(Kind kind, String name, String key, Boolean optionalRef)
        throws EnvException {
      boolean optional = Boolean.TRUE.equals(optionalRef);
      Optional<Map<String, String>> data = data(kind, name, optional);
      if (data.isEmpty()) {
        return Optional.empty();
      }
      if (!data.get().containsKey(key)) {
        if (optional) {
          return Optional.empty();
        }
        throw new EnvException(
            String.format("couldn't find key %s in %s %s/%s", key, kind.type, namespace, name));
      }
      return Optional.of(nullToEmpty(data.get().get(key)));
    }
  }
}
