package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A standalone node with {@code --network-plugin=kubenet} and {@code --pod-cidr}: static pods on
 * kubenet's {@code cbr0} bridge with addresses of the pod CIDR, reaching each other, a host port at
 * the bridge's address, and the addresses released when the pods go. The bridge, its address
 * records and kubenet's NAT rule are removed afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
class KubenetE2EIT {
  private static final Path IPAM = Path.of("/var/lib/cni/networks/kubenet");
  private final int net = ThreadLocalRandom.current().nextInt(1, 250);
  private final String cidr = "10.89." + net + ".0/24";
  private final String node = "kubenet-" + UUID.randomUUID().toString().substring(0, 8);
  private Path tmp;
  private Path manifests;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-kubenet");
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    jkubelet =
        new JkubeletProcess(
                node,
                manifests,
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--network-plugin=kubenet",
                    "--pod-cidr=" + cidr,
                    "--cni-bin-dir=/usr/lib/cni",
                    "--cni-cache-dir=" + tmp.resolve("cache"),
                    "--hairpin-mode=hairpin-veth"))
            .start();
    jkubelet.awaitHealthy();
  }

  @AfterAll
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    TestDocker.removeAll(TestDocker.client(), Labels.NODE, node);
    run("ip", "link", "del", "cbr0");
    run(
        "iptables",
        "-w",
        "-t",
        "nat",
        "-D",
        "POSTROUTING",
        "-m",
        "comment",
        "--comment",
        "kubenet: SNAT for outbound traffic from cluster",
        "-m",
        "addrtype",
        "!",
        "--dst-type",
        "LOCAL",
        "!",
        "-d",
        "10.0.0.0/8",
        "-j",
        "MASQUERADE");
  }

  @Test
  void staticPodsGetAddressesOfThePodCidrReachEachOtherAndAHostPortAndReleaseThemWhenTheyGo()
      throws Exception {
    manifest("a.yaml", pod("a", ""));
    manifest(
        "b.yaml",
        pod("b", "    ports: [{containerPort: 8080, hostPort: 19%03d}]\n".formatted(net)));
    await().atMost(Duration.ofSeconds(90)).until(() -> ip("a").isPresent() && ip("b").isPresent());
    String a = ip("a").orElseThrow();
    String b = ip("b").orElseThrow();
    assertThat(List.of(a, b))
        .allMatch(ip -> ip.startsWith("10.89." + net + "."))
        .doesNotHaveDuplicates();
    assertThat(allocated()).contains(a, b);

    String containerA = appContainer("a");
    assertThat(run("docker", "exec", containerA, "ping", "-c", "1", "-W", "5", b)).isZero();
    // The MTU kubenet picked: the host's smallest, as upstream.
    assertThat(output("docker", "exec", containerA, "cat", "/sys/class/net/eth0/mtu").strip())
        .isEqualTo(Integer.toString(smallestHostMtu()));
    String gateway = "10.89." + net + ".1";
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                output(
                        "curl",
                        "-s",
                        "--max-time",
                        "3",
                        "http://" + gateway + ":19%03d/".formatted(net))
                    .contains("hello-kubenet"));

    Files.delete(manifests.resolve("a.yaml"));
    Files.delete(manifests.resolve("b.yaml"));
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> !allocated().contains(a) && !allocated().contains(b));
  }

  private String pod(String name, String ports) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          terminationGracePeriodSeconds: 2
          containers:
          - name: c
            image: jkubelet/busybox:1.35
            command: [sh, -c, 'mkdir -p /www && echo hello-kubenet > /www/index.html && exec httpd -f -p 8080 -h /www']
        %s"""
        .formatted(name, ports);
  }

  private void manifest(String file, String yaml) throws Exception {
    Path t = tmp.resolve(file + ".tmp");
    Files.writeString(t, yaml);
    Files.move(t, manifests.resolve(file), StandardCopyOption.ATOMIC_MOVE);
  }

  private java.util.Optional<String> ip(String name) {
    return jkubelet
        .pod(name + "-" + node)
        .map(Pod::getStatus)
        .map(s -> s.getPodIP())
        .filter(ip -> ip != null && !ip.isEmpty());
  }

  private String appContainer(String name) {
    Pod p = jkubelet.pod(name + "-" + node).orElseThrow();
    return TestDocker.withLabels(
            TestDocker.client(),
            Map.of(Labels.POD_UID, p.getMetadata().getUid(), Labels.CONTAINER_NAME, "c"))
        .get(0)
        .getId();
  }

  private static List<String> allocated() throws Exception {
    if (!Files.isDirectory(IPAM)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(IPAM)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static int smallestHostMtu() throws Exception {
    int smallest = Integer.MAX_VALUE;
    try (Stream<Path> s = Files.list(Path.of("/sys/class/net"))) {
      for (Path i : s.toList()) {
        int flags = Integer.decode(Files.readString(i.resolve("flags")).strip());
        if ((flags & 0x1) != 0
            && (flags & 0x8) == 0
            && !i.getFileName().toString().equals("cbr0")
            && !i.getFileName().toString().startsWith("veth")) {
          smallest =
              Math.min(smallest, Integer.parseInt(Files.readString(i.resolve("mtu")).strip()));
        }
      }
    }
    return smallest == Integer.MAX_VALUE ? 1460 : smallest;
  }

  private static int run(String... cmd) throws Exception {
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor();
  }

  private static String output(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }
}
