package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The node's InternalIP without {@code --node-ip}, in the order of upstream's NodeAddress. */
class NodeIpTest {
  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal); // a literal: no resolution
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private static final Set<InetAddress> LOCAL =
      Set.of(ip("127.0.0.1"), ip("10.0.0.5"), ip("192.168.1.9"), ip("fd00::5"));
  private static final Supplier<String> INTERFACES = () -> "192.168.1.9";

  private static Function<String, List<InetAddress>> resolver(Map<String, List<String>> names) {
    return n -> names.getOrDefault(n, List.of()).stream().map(NodeIpTest::ip).toList();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Named.of("a name that is an IP is the IP", "10.9.9.9"), Map.of(), "10.9.9.9"),
        Arguments.of(
            Named.of("a name that does not resolve: the interfaces'", "vm"),
            Map.of(),
            "192.168.1.9"),
        Arguments.of(
            Named.of("Debian's 127.0.1.1 line is loopback: the interfaces'", "vm"),
            Map.of("vm", List.of("127.0.1.1")),
            "192.168.1.9"),
        Arguments.of(
            Named.of("an address not on this host is skipped", "vm"),
            Map.of("vm", List.of("10.1.1.1", "10.0.0.5")),
            "10.0.0.5"),
        Arguments.of(
            Named.of("IPv4 before IPv6", "vm"),
            Map.of("vm", List.of("fd00::5", "10.0.0.5")),
            "10.0.0.5"),
        Arguments.of(
            Named.of("IPv6 when it is the only one", "vm"),
            Map.of("vm", List.of("fd00::5")),
            "fd00:0:0:0:0:0:0:5"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theNodesIp(String nodeName, Map<String, List<String>> names, String expected) {
    assertThat(NodeIp.choose(nodeName, resolver(names), LOCAL, INTERFACES)).isEqualTo(expected);
  }

  @Test
  void aNameThatDoesNotResolveOnThisHostIsNoError() {
    assertThat(NodeIp.forNode("no-such-node.invalid")).isEqualTo(NodeIp.detect());
  }
}
