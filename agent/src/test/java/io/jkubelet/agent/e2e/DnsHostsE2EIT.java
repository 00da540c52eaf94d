package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Name resolution end to end: jkubelet in cluster mode with {@code --cluster-dns} and {@code
 * --cluster-domain}, pods from the real API server, and the resolv.conf and /etc/hosts that the
 * containers see, read through the engine's exec.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class DnsHostsE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SLEEPER =
      "image: jkubelet/busybox:1.35\n    command: [sh, -c, \"trap 'exit 0' TERM; sleep 3600 & wait\"]";

  @RegisterExtension
  static final ClusterNode cluster =
      new ClusterNode(
          "dns", List.of("--cluster-dns", "10.96.0.10", "--cluster-domain", "cluster.local"));

  private final DockerClient docker = TestDocker.client();

  @AfterAll
  void close() throws Exception {
    docker.close();
  }

  @Test
  void aClusterFirstPodResolvesThroughClusterDnsAndKnowsItsOwnFqdnAndAliases() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
                "web-0",
                cluster.node,
                """
                  - name: app
                    %s
                """
                    .formatted(SLEEPER))
            .replace(
                "  containers:",
                "  hostname: web-0\n  subdomain: web\n"
                    + "  hostAliases: [{ip: 1.2.3.4, hostnames: [foo.local, bar.local]}]\n"
                    + "  containers:"));
    String id = awaitRunning("web-0");
    String ip = get("web-0").path("status").path("podIP").asText();

    assertThat(TestDocker.exec(docker, id, "cat /etc/resolv.conf"))
        .isEqualTo(
            ("nameserver 10.96.0.10\nsearch %s.svc.cluster.local svc.cluster.local cluster.local")
                    .formatted(cluster.ns)
                + searchesOfTheNode()
                + "\noptions ndots:5");
    assertThat(TestDocker.exec(docker, id, "cat /etc/hosts"))
        .startsWith("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n")
        .contains(ip + "\tweb-0.web." + cluster.ns + ".svc.cluster.local\tweb-0\n")
        .endsWith("# Entries added by HostAliases.\n1.2.3.4\tfoo.local\tbar.local");
    assertThat(TestDocker.exec(docker, id, "hostname")).isEqualTo("web-0");
  }

  @Test
  void setHostnameAsFqdnMakesTheKernelsHostnameTheFqdn() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
                "fq",
                cluster.node,
                """
                  - name: app
                    %s
                """
                    .formatted(SLEEPER))
            .replace(
                "  containers:",
                "  hostname: fq\n  subdomain: web\n  setHostnameAsFQDN: true\n  containers:"));
    String id = awaitRunning("fq");
    assertThat(TestDocker.exec(docker, id, "hostname"))
        .isEqualTo("fq.web." + cluster.ns + ".svc.cluster.local");
  }

  @Test
  void aNonePodGetsExactlyItsDnsConfig() throws Exception {
    Kubectl.apply(
        cluster.ns,
        Kubectl.boundPod(
                "none",
                cluster.node,
                """
                  - name: app
                    %s
                """
                    .formatted(SLEEPER))
            .replace(
                "  containers:",
                "  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], searches: [my.dns],"
                    + " options: [{name: ndots, value: '2'}, {name: edns0}]}\n  containers:"));
    String id = awaitRunning("none");
    assertThat(TestDocker.exec(docker, id, "cat /etc/resolv.conf"))
        .isEqualTo("nameserver 1.1.1.1\nsearch my.dns\noptions ndots:2 edns0");
  }

  /** The node's own search domains, which ClusterFirst appends: " a b", or "". */
  private static String searchesOfTheNode() throws Exception {
    String search = "";
    for (String line :
        java.nio.file.Files.readAllLines(java.nio.file.Path.of("/etc/resolv.conf"))) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 1 && f[0].equals("search")) {
        search = " " + String.join(" ", List.of(f).subList(1, f.length));
      }
    }
    return search;
  }

  private JsonNode get(String pod) throws Exception {
    return JSON.readTree(Kubectl.run("-n", cluster.ns, "get", "pod", pod, "-o", "json").ok().out());
  }

  private String awaitRunning(String pod) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              JsonNode s = get(pod).path("status").path("containerStatuses").get(0);
              return s.path("state").has("running")
                  ? s.path("containerID").asText().replace("docker://", "")
                  : null;
            },
            id -> id != null && !id.isEmpty());
  }
}
