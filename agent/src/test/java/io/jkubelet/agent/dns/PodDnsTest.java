package io.jkubelet.agent.dns;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.runtime.SandboxConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodDnsTest {
  @TempDir Path tmp;
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder = (o, t, reason, msg) -> events.add(reason + ": " + msg);

  private PodDns dns(List<String> clusterDns, String hostResolv) throws Exception {
    Path resolv = tmp.resolve("resolv.conf");
    Files.writeString(resolv, hostResolv);
    return new PodDns(
        clusterDns, "cluster.local", resolv.toString(), () -> "10.1.1.1", "node1", recorder);
  }

  private static Pod pod(String extraSpec) {
    return TestPods.parse(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ns1, uid: u1}
        spec:
          containers: [{name: a, image: busybox}]
        """
            + extraSpec);
  }

  private static final String HOST =
      "# host\nnameserver 192.168.0.1\nnameserver 192.168.0.2\nsearch corp.example\n"
          + "options timeout:2\n";

  @Test
  void clusterFirstUsesTheClusterServersSearchPathAndNdots() throws Exception {
    SandboxConfig.Dns d = dns(List.of("10.0.0.10"), HOST).forPod(pod(""));
    assertThat(d.render())
        .isEqualTo(
            "nameserver 10.0.0.10\n"
                + "search ns1.svc.cluster.local svc.cluster.local cluster.local corp.example\n"
                + "options ndots:5\n");
    assertThat(events).isEmpty();
  }

  @Test
  void defaultCopiesTheNodesResolverAndNoneStartsEmpty() throws Exception {
    PodDns dns = dns(List.of("10.0.0.10"), HOST);
    assertThat(dns.forPod(pod("  dnsPolicy: Default\n")).render())
        .isEqualTo(
            "nameserver 192.168.0.1\nnameserver 192.168.0.2\nsearch corp.example\n"
                + "options timeout:2\n");
    assertThat(
            dns.forPod(
                    pod(
                        "  dnsPolicy: None\n  dnsConfig: {nameservers: [1.2.3.4], searches:"
                            + " [a.b], options: [{name: ndots, value: '2'}, {name: edns0}]}\n"))
                .render())
        .isEqualTo("nameserver 1.2.3.4\nsearch a.b\noptions ndots:2 edns0\n");
  }

  @Test
  void clusterFirstOnTheHostNetworkIsDefaultUnlessWithHostNet() throws Exception {
    PodDns dns = dns(List.of("10.0.0.10"), HOST);
    assertThat(dns.forPod(pod("  hostNetwork: true\n")).servers())
        .containsExactly("192.168.0.1", "192.168.0.2");
    assertThat(
            dns.forPod(pod("  hostNetwork: true\n  dnsPolicy: ClusterFirstWithHostNet\n"))
                .servers())
        .containsExactly("10.0.0.10");
  }

  @Test
  void withoutClusterDnsClusterFirstFallsBackWithMissingClusterDns() throws Exception {
    SandboxConfig.Dns d = dns(List.of(), HOST).forPod(pod(""));
    assertThat(d.servers()).containsExactly("192.168.0.1", "192.168.0.2");
    assertThat(events)
        .hasSize(2)
        .allMatch(e -> e.startsWith("MissingClusterDNS: "))
        .anyMatch(
            e ->
                e.equals(
                    "MissingClusterDNS: pod: \"p_ns1(u1)\". kubelet does not have ClusterDNS IP"
                        + " configured and cannot create Pod using \"ClusterFirst\" policy."
                        + " Falling back to \"Default\" policy."));
  }

  @Test
  void podOptionsOverrideByNameAndLimitsAreAppliedWithAnEvent() throws Exception {
    PodDns dns = dns(List.of("10.0.0.10"), HOST);
    SandboxConfig.Dns d =
        dns.forPod(
            pod(
                "  dnsConfig:\n    nameservers: [1.1.1.1, 2.2.2.2, 3.3.3.3]\n"
                    + "    searches: [s1, s2, s3]\n    options: [{name: ndots, value: '1'}]\n"));
    assertThat(d.servers()).containsExactly("10.0.0.10", "1.1.1.1", "2.2.2.2");
    assertThat(d.searches()).hasSize(6).endsWith("s2");
    assertThat(d.options()).containsExactly("ndots:1");
    assertThat(events)
        .containsExactly(
            "DNSConfigForming: Search Line limits were exceeded, some search paths have been"
                + " omitted, the applied search line is: ns1.svc.cluster.local svc.cluster.local"
                + " cluster.local corp.example s1 s2",
            "DNSConfigForming: Nameserver limits were exceeded, some nameservers have been"
                + " omitted, the applied nameserver line is: 10.0.0.10 1.1.1.1 2.2.2.2");
  }

  @Test
  void theManagedHostsFileHasTheFqdnWithASubdomainAndTheAliases() {
    assertThat(
            HostsFile.managed(
                List.of("10.2.0.5"),
                "web-0",
                "web.ns1.svc.cluster.local",
                List.of(new HostAlias(List.of("foo", "bar"), "1.2.3.4"))))
        .isEqualTo(
            "# Kubernetes-managed hosts file.\n"
                + "127.0.0.1\tlocalhost\n"
                + "::1\tlocalhost ip6-localhost ip6-loopback\n"
                + "fe00::0\tip6-localnet\n"
                + "fe00::0\tip6-mcastprefix\n"
                + "fe00::1\tip6-allnodes\n"
                + "fe00::2\tip6-allrouters\n"
                + "10.2.0.5\tweb-0.web.ns1.svc.cluster.local\tweb-0\n"
                + "\n# Entries added by HostAliases.\n"
                + "1.2.3.4\tfoo\tbar\n");
    assertThat(HostsFile.managed(List.of("10.2.0.5"), "p", "", List.of()))
        .endsWith("fe00::2\tip6-allrouters\n10.2.0.5\tp\n");
  }

  @Test
  void aHostNetworkPodGetsTheNodesHostsFileWithItsAliases() throws Exception {
    Path nodeHosts = tmp.resolve("hosts");
    Files.writeString(nodeHosts, "127.0.0.1 localhost\n");
    Pod p = pod("  hostNetwork: true\n  hostAliases: [{ip: 1.2.3.4, hostnames: [foo]}]\n");
    Path file =
        HostsFile.ensure(
            tmp.resolve("pod"), p, List.of("10.1.1.1"), new PodHostname("p", ""), nodeHosts);
    assertThat(Files.readString(file))
        .isEqualTo(
            "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n"
                + "\n# Entries added by HostAliases.\n1.2.3.4\tfoo\n");
  }
}
