package io.jkubelet.agent.env;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceEnvTest {
  private static Service service(String ns, String name, String ip, ServicePortBuilder... ports) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withClusterIP(ip)
        .withPorts(java.util.Arrays.stream(ports).map(ServicePortBuilder::build).toList())
        .endSpec()
        .build();
  }

  private static ServicePortBuilder port(String name, int port, String protocol) {
    return new ServicePortBuilder().withName(name).withPort(port).withProtocol(protocol);
  }

  @Test
  void everyPortGetsDockerLinkVariablesAndNamedPortsTheirOwn() {
    Map<String, String> env =
        ServiceEnv.fromService(
            service(
                "ns",
                "my-db",
                "10.0.0.9",
                port("", 5432, "TCP"),
                port("metrics-port", 9187, "UDP")));
    assertThat(env)
        .containsExactly(
            Map.entry("MY_DB_SERVICE_HOST", "10.0.0.9"),
            Map.entry("MY_DB_SERVICE_PORT", "5432"),
            Map.entry("MY_DB_SERVICE_PORT_METRICS_PORT", "9187"),
            Map.entry("MY_DB_PORT", "tcp://10.0.0.9:5432"),
            Map.entry("MY_DB_PORT_5432_TCP", "tcp://10.0.0.9:5432"),
            Map.entry("MY_DB_PORT_5432_TCP_PROTO", "tcp"),
            Map.entry("MY_DB_PORT_5432_TCP_PORT", "5432"),
            Map.entry("MY_DB_PORT_5432_TCP_ADDR", "10.0.0.9"),
            Map.entry("MY_DB_PORT_9187_UDP", "udp://10.0.0.9:9187"),
            Map.entry("MY_DB_PORT_9187_UDP_PROTO", "udp"),
            Map.entry("MY_DB_PORT_9187_UDP_PORT", "9187"),
            Map.entry("MY_DB_PORT_9187_UDP_ADDR", "10.0.0.9"));
  }

  @Test
  void aServiceOfThePodsNamespaceReplacesTheMasterServiceOfTheSameName() {
    List<Service> services =
        List.of(
            service("default", "kubernetes", "10.0.0.1", port("https", 443, "TCP")),
            service("ns", "kubernetes", "10.0.0.50", port("", 80, "TCP")),
            service("default", "other", "10.0.0.2", port("", 80, "TCP")));

    assertThat(ServiceEnv.forNamespace(services, "ns", true))
        .containsEntry("KUBERNETES_SERVICE_HOST", "10.0.0.50")
        .doesNotContainKey("OTHER_SERVICE_HOST");
    assertThat(ServiceEnv.forNamespace(services, "ns", false))
        .containsEntry("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    assertThat(ServiceEnv.forNamespace(services, "default", true))
        .containsEntry("KUBERNETES_SERVICE_HOST", "10.0.0.1")
        .containsEntry("OTHER_SERVICE_HOST", "10.0.0.2");
  }

  @Test
  void anIpv6ClusterIpIsBracketedInUrls() {
    assertThat(ServiceEnv.fromService(service("ns", "v6", "fd00::1", port("", 80, "TCP"))))
        .containsEntry("V6_PORT", "tcp://[fd00::1]:80")
        .containsEntry("V6_PORT_80_TCP_ADDR", "fd00::1");
  }
}
