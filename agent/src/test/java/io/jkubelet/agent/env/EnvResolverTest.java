package io.jkubelet.agent.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.jkubelet.agent.objects.PodObjects;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EnvResolverTest {
  private static final NodeAllocatable NODE = new NodeAllocatable(4000, 8L << 30, 100L << 30);
  private static final DownwardApi.Addresses AT =
      DownwardApi.Addresses.of(List.of("10.0.0.7"), "192.168.1.2");

  private final Objects objects = new Objects();
  private final EnvResolver resolver = new EnvResolver(objects, NODE);

  @Test
  void literalValuesExpandEarlierVariablesAndServiceVariablesButNotLaterOnes() throws Exception {
    objects.services.add(service("default", "kubernetes", "10.96.0.1", 443, "https"));
    Pod pod =
        pod(
            """
            containers:
            - name: app
              image: busybox
              env:
              - {name: A, value: a}
              - {name: B, value: "$(A)-$(C)-$(KUBERNETES_SERVICE_HOST)"}
              - {name: C, value: c}
              - {name: D, value: "$$(A)"}
            """);

    Map<String, String> env = env(pod);

    assertThat(env)
        .containsEntry("B", "a-$(C)-10.96.0.1")
        .containsEntry("D", "$(A)")
        .containsEntry("KUBERNETES_SERVICE_HOST", "10.96.0.1")
        .containsEntry("KUBERNETES_SERVICE_PORT", "443")
        .containsEntry("KUBERNETES_SERVICE_PORT_HTTPS", "443")
        .containsEntry("KUBERNETES_PORT", "tcp://10.96.0.1:443")
        .containsEntry("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443")
        .containsEntry("KUBERNETES_PORT_443_TCP_PROTO", "tcp")
        .containsEntry("KUBERNETES_PORT_443_TCP_PORT", "443")
        .containsEntry("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1");
    assertThat(List.copyOf(env.keySet()).subList(0, 4)).containsExactly("A", "B", "C", "D");
  }

  @Test
  void serviceLinksOfTheNamespaceOnlyWhenEnabledTheMasterServiceAlways() throws Exception {
    objects.services.add(service("default", "kubernetes", "10.96.0.1", 443, "https"));
    objects.services.add(service("ns1", "my-db", "10.96.0.9", 5432, ""));
    objects.services.add(service("other", "far", "10.96.0.10", 80, ""));
    objects.services.add(service("ns1", "headless", "None", 80, ""));

    Map<String, String> on = env(pod("containers: [{name: app, image: busybox}]"));
    Map<String, String> off =
        env(pod("enableServiceLinks: false\ncontainers: [{name: app, image: busybox}]"));

    assertThat(on)
        .containsEntry("MY_DB_SERVICE_HOST", "10.96.0.9")
        .containsEntry("MY_DB_PORT_5432_TCP_ADDR", "10.96.0.9")
        .containsKey("KUBERNETES_SERVICE_HOST")
        .doesNotContainKeys("FAR_SERVICE_HOST", "HEADLESS_SERVICE_HOST");
    assertThat(off).containsKey("KUBERNETES_SERVICE_HOST").doesNotContainKey("MY_DB_SERVICE_HOST");
  }

  @Test
  void aContainerVariableOverridesAServiceVariable() throws Exception {
    objects.services.add(service("default", "kubernetes", "10.96.0.1", 443, ""));
    Map<String, String> env =
        env(
            pod(
                """
                containers:
                - name: app
                  image: busybox
                  env: [{name: KUBERNETES_SERVICE_HOST, value: mine}]
                """));
    assertThat(env).containsEntry("KUBERNETES_SERVICE_HOST", "mine");
  }

  @Test
  void configMapAndSecretKeysWithOptionalOnesLeftOutWhenMissing() throws Exception {
    objects.configMaps.put("cm", configMap("cm", Map.of("k", "from-cm")));
    objects.secrets.put("s", secret("s", Map.of("pw", "hunter2")));
    Map<String, String> env =
        env(
            pod(
                """
                containers:
                - name: app
                  image: busybox
                  env:
                  - {name: CM, valueFrom: {configMapKeyRef: {name: cm, key: k}}}
                  - {name: PW, valueFrom: {secretKeyRef: {name: s, key: pw}}}
                  - {name: NO_KEY, valueFrom: {configMapKeyRef: {name: cm, key: x, optional: true}}}
                  - {name: NO_CM, valueFrom: {configMapKeyRef: {name: gone, key: x, optional: true}}}
                  - {name: NO_S, valueFrom: {secretKeyRef: {name: gone, key: x, optional: true}}}
                """));
    assertThat(env)
        .containsEntry("CM", "from-cm")
        .containsEntry("PW", "hunter2")
        .doesNotContainKeys("NO_KEY", "NO_CM", "NO_S");
  }

  @Test
  void missingRequiredSourcesFailWithUpstreamsMessages() {
    objects.configMaps.put("cm", configMap("cm", Map.of("k", "v")));
    objects.secrets.put("s", secret("s", Map.of("k", "v")));
    assertThatThrownBy(
            () -> env(withEnv("{name: X, valueFrom: {configMapKeyRef: {name: cm, key: nope}}}")))
        .isInstanceOf(EnvException.class)
        .hasMessage("couldn't find key nope in ConfigMap ns1/cm");
    assertThatThrownBy(
            () -> env(withEnv("{name: X, valueFrom: {secretKeyRef: {name: s, key: nope}}}")))
        .hasMessage("couldn't find key nope in Secret ns1/s");
    assertThatThrownBy(
            () -> env(withEnv("{name: X, valueFrom: {secretKeyRef: {name: gone, key: k}}}")))
        .hasMessage("secret \"gone\" not found");
    assertThatThrownBy(
            () -> env(withEnv("{name: X, valueFrom: {configMapKeyRef: {name: gone, key: k}}}")))
        .hasMessage("configmap \"gone\" not found");
  }

  @Test
  void withoutAnApiServerEveryObjectSourceFailsAsUpstreamWithoutAClient() {
    EnvResolver standalone = new EnvResolver(PodObjects.NONE, NODE);
    Pod pod =
        withEnv("{name: X, valueFrom: {configMapKeyRef: {name: cm, key: k, optional: true}}}");
    assertThatThrownBy(() -> standalone.resolve(pod, pod.getSpec().getContainers().get(0), AT))
        .hasMessage("couldn't get configMap ns1/cm, no kubeClient defined");
  }

  @Test
  void envFromWithPrefixSkipsInvalidKeysWithAWarningAndEnvOverridesIt() throws Exception {
    objects.configMaps.put(
        "cm", configMap("cm", Map.of("GOOD", "1", "1bad", "2", "also bad", "3", "SAME", "cm")));
    objects.secrets.put("s", secret("s", Map.of("TOKEN", "t")));
    Pod pod =
        pod(
            """
            containers:
            - name: app
              image: busybox
              envFrom:
              - configMapRef: {name: cm}
              - prefix: S_
                secretRef: {name: s}
              - configMapRef: {name: gone, optional: true}
              env: [{name: SAME, value: env}]
            """);

    EnvResolver.Resolved r = resolver.resolve(pod, pod.getSpec().getContainers().get(0), AT);

    assertThat(r.asMap())
        .containsEntry("GOOD", "1")
        .containsEntry("S_TOKEN", "t")
        .containsEntry("SAME", "env")
        .doesNotContainKeys("1bad", "also bad");
    assertThat(r.warnings())
        .containsExactly(
            "Keys [1bad, also bad] from the EnvFrom configMap ns1/cm were skipped since they are"
                + " considered invalid environment variable names.");
  }

  @Test
  void fieldRefsIncludingPodIpsServiceAccountAndWholeLabelMaps() throws Exception {
    Pod pod =
        pod(
            """
            serviceAccountName: robot
            nodeName: node-a
            containers:
            - name: app
              image: busybox
              env:
              - {name: IPS, valueFrom: {fieldRef: {fieldPath: status.podIPs}}}
              - {name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
              - {name: HOST, valueFrom: {fieldRef: {fieldPath: status.hostIP}}}
              - {name: SA, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}
              - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
              - {name: L, valueFrom: {fieldRef: {fieldPath: "metadata.labels['app']"}}}
              - {name: LS, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}
              - {name: MISSING, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['x']"}}}
            """);
    assertThat(env(pod))
        .containsEntry("IPS", "10.0.0.7")
        .containsEntry("IP", "10.0.0.7")
        .containsEntry("HOST", "192.168.1.2")
        .containsEntry("SA", "robot")
        .containsEntry("NODE", "node-a")
        .containsEntry("L", "web")
        .containsEntry("LS", "app=\"web\"\ntier=\"a \\\"b\\\"\"")
        .containsEntry("MISSING", "");
  }

  @Test
  void resourceFieldRefsWithDivisorsAndTheNodesAllocatableForMissingLimits() throws Exception {
    Pod pod =
        pod(
            """
            containers:
            - name: app
              image: busybox
              resources:
                requests: {cpu: 250m, memory: 64Mi}
                limits: {cpu: 1500m}
              env:
              - {name: CPU_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}
              - {name: CPU_LIMIT_M, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}
              - {name: CPU_REQ, valueFrom: {resourceFieldRef: {resource: requests.cpu}}}
              - {name: MEM_REQ_MI, valueFrom: {resourceFieldRef: {resource: requests.memory, divisor: 1Mi}}}
              - {name: MEM_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.memory}}}
              - {name: OTHER_CPU, valueFrom: {resourceFieldRef: {containerName: side, resource: limits.cpu, divisor: 1m}}}
            - name: side
              image: busybox
            """);
    assertThat(env(pod))
        .containsEntry("CPU_LIMIT", "2")
        .containsEntry("CPU_LIMIT_M", "1500")
        .containsEntry("CPU_REQ", "1")
        .containsEntry("MEM_REQ_MI", "64")
        .containsEntry("MEM_LIMIT", Long.toString(8L << 30))
        .containsEntry("OTHER_CPU", "4000");
  }

  // --- helpers ---

  private Map<String, String> env(Pod pod) throws EnvException {
    return resolver.resolve(pod, pod.getSpec().getContainers().get(0), AT).asMap();
  }

  private static Pod withEnv(String entry) {
    return pod("containers: [{name: app, image: busybox, env: [" + entry + "]}]");
  }

  @Test
  void withoutTheServicesAStaticPodStartsWithoutServiceVariablesAndAnApiPodFails()
      throws Exception {
    objects.servicesUnreadable = true;
    Pod apiPod = withEnv("{name: A, value: a}");
    assertThatThrownBy(() -> env(apiPod))
        .isInstanceOf(EnvException.class)
        .hasMessage("failed to list services when setting up env vars");

    Pod staticPod = withEnv("{name: A, value: a}");
    staticPod.getMetadata().setAnnotations(Map.of("kubernetes.io/config.source", "file"));
    assertThat(env(staticPod)).containsExactly(Map.entry("A", "a"));

    objects.servicesUnreadable = false;
    objects.services.add(service("default", "kubernetes", "10.96.0.1", 443, "https"));
    assertThat(env(staticPod)).containsEntry("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  }

  private static Pod pod(String spec) {
    String yaml =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns1\n  uid: u1\n"
            + "  labels: {app: web, tier: 'a \"b\"'}\nspec:\n"
            + spec.lines().map(l -> "  " + l).collect(Collectors.joining("\n"));
    return Serialization.unmarshal(yaml, Pod.class);
  }

  private static Service service(String ns, String name, String ip, int port, String portName) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP(ip)
        .addNewPort()
        .withName(portName.isEmpty() ? null : portName)
        .withPort(port)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static ConfigMap configMap(String name, Map<String, String> data) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withData(data)
        .build();
  }

  private static Secret secret(String name, Map<String, String> data) {
    Map<String, String> encoded = new HashMap<>();
    data.forEach(
        (k, v) ->
            encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withData(encoded)
        .build();
  }

  /** Objects of namespace ns1, by name. */
  private static final class Objects implements PodObjects {
    final Map<String, ConfigMap> configMaps = new HashMap<>();
    final Map<String, Secret> secrets = new HashMap<>();
    final List<Service> services = new ArrayList<>();
    boolean servicesUnreadable;

    @Override
    public Optional<Secret> secret(String namespace, String name) {
      return "ns1".equals(namespace) ? Optional.ofNullable(secrets.get(name)) : Optional.empty();
    }

    @Override
    public Optional<ConfigMap> configMap(String namespace, String name) {
      return "ns1".equals(namespace) ? Optional.ofNullable(configMaps.get(name)) : Optional.empty();
    }

    @Override
    public List<Service> services() {
      if (servicesUnreadable) {
        throw new IllegalStateException("connection refused");
      }
      return services;
    }

    @Override
    public void register(Pod pod) {}

    @Override
    public void unregister(Pod pod) {}

    @Override
    public void start() {}

    @Override
    public void stop() {}

    @Override
    public Health healthy() {
      return Health.OK;
    }
  }
}
