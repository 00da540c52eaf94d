package io.jkubelet.agent.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.TestPods;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Host port conflicts at admission, as upstream's NodePorts predicate decides them. */
class HostPortsTest {
  private static final Admission.Allocatable NODE = new Admission.Allocatable(4000, 4L << 30, 110);

  private static Pod pod(String uid, String hostIp, String protocol, int hostPort) {
    Pod p = TestPods.simple(uid, "p" + uid, "c");
    p.getSpec()
        .getContainers()
        .get(0)
        .setPorts(
            List.of(
                new ContainerPortBuilder()
                    .withContainerPort(8080)
                    .withHostPort(hostPort)
                    .withHostIP(hostIp)
                    .withProtocol(protocol)
                    .build()));
    return p;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Named.of("same port, any address", pod("b", null, null, 80)), true),
        Arguments.of(
            Named.of("same port, the used one on any address", pod("b", "10.0.0.5", "TCP", 80)),
            true),
        Arguments.of(Named.of("another port", pod("b", null, "TCP", 81)), false),
        Arguments.of(Named.of("same port, UDP", pod("b", null, "UDP", 80)), false),
        Arguments.of(Named.of("no host port", pod("b", null, "TCP", 0)), false));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void aPodIsRejectedWithNodePortsOnlyWhenItsHostPortIsTaken(Pod wanted, boolean rejected) {
    var result = Admission.admit(wanted, List.of(pod("a", "", "TCP", 80)), NODE);
    if (rejected) {
      assertThat(result)
          .hasValueSatisfying(
              r -> {
                assertThat(r.reason()).isEqualTo("NodePorts");
                assertThat(r.message()).isEqualTo("Predicate NodePorts failed");
              });
    } else {
      assertThat(result).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("addresses")
  void specificAddressesConflictOnlyWithTheSameOneOrAnyAddress(
      String used, String wanted, boolean conflict) {
    assertThat(
            HostPorts.conflict(
                pod("b", wanted, "TCP", 54321), List.of(pod("a", used, "TCP", 54321))))
        .isEqualTo(conflict);
  }

  static Stream<Arguments> addresses() {
    return Stream.of(
        Arguments.of("127.0.0.1", "10.250.0.12", false),
        Arguments.of("10.250.0.12", "10.250.0.12", true),
        Arguments.of("127.0.0.1", "0.0.0.0", true),
        Arguments.of("0.0.0.0", "127.0.0.1", true));
  }
}
