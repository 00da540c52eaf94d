package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Named.named;

import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeFlagsTest {

  private static String taint(Taint t) {
    return t.getKey() + "=" + t.getValue() + ":" + t.getEffect();
  }

  @Test
  void parsesTaintsWithAndWithoutValues() {
    List<Taint> taints =
        NodeFlags.parseTaints(
            "dedicated=gpu:NoSchedule,example.com/spot:PreferNoSchedule, maint=:NoExecute");
    assertThat(taints)
        .extracting(NodeFlagsTest::taint)
        .containsExactly(
            "dedicated=gpu:NoSchedule", "example.com/spot=:PreferNoSchedule", "maint=:NoExecute");
  }

  @Test
  void anEmptyTaintSpecIsNoTaints() {
    assertThat(NodeFlags.parseTaints("")).isEmpty();
    assertThat(NodeFlags.parseTaints(null)).isEmpty();
  }

  static Stream<Arguments> badTaints() {
    return Stream.of(
        Arguments.of(named("no effect", "a=b"), "\"a=b\"", "expected key[=value]:Effect"),
        Arguments.of(
            named("unknown effect", "a=b:Sometimes"), "\"a=b:Sometimes\"", "got \"Sometimes\""),
        Arguments.of(named("empty effect", "a=b:"), "\"a=b:\"", "got none"),
        Arguments.of(named("two colons", "a:b:NoSchedule"), "\"a:b:NoSchedule\"", "expected"),
        Arguments.of(named("two equals", "a=b=c:NoSchedule"), "\"a=b=c:NoSchedule\"", "'='"),
        Arguments.of(named("empty key", "=v:NoSchedule"), "\"=v:NoSchedule\"", "key: must not"),
        Arguments.of(named("bad key", "-a:NoSchedule"), "\"-a:NoSchedule\"", "key: name part must"),
        Arguments.of(
            named("bad value", "a=b c:NoSchedule"), "\"a=b c:NoSchedule\"", "value: must be"),
        Arguments.of(
            named("empty entry", "a:NoSchedule,,b:NoSchedule"), "\"\"", "expected key[=value]"),
        Arguments.of(
            named("duplicate", "a=1:NoSchedule,a=2:NoSchedule"),
            "duplicate taint \"a=2:NoSchedule\"",
            "already given"));
  }

  @ParameterizedTest
  @MethodSource
  void badTaints(String spec, String namesEntry, String says) {
    assertThatThrownBy(() -> NodeFlags.parseTaints(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(namesEntry)
        .hasMessageContaining(says);
  }

  @Test
  void theSameKeyWithAnotherEffectIsAllowed() {
    assertThat(NodeFlags.parseTaints("a:NoSchedule,a:NoExecute")).hasSize(2);
  }

  @Test
  void parsesLabelsTrimmingSpacesAndSkippingEmptyEntries() {
    Map<String, String> labels =
        NodeFlags.parseLabels(
            "zone=a, node.kubernetes.io/pool = blue,,kubelet.kubernetes.io/x=,example.com/y=z");
    assertThat(labels)
        .containsExactly(
            Map.entry("zone", "a"),
            Map.entry("node.kubernetes.io/pool", "blue"),
            Map.entry("kubelet.kubernetes.io/x", ""),
            Map.entry("example.com/y", "z"));
    assertThat(NodeFlags.parseLabels("")).isEmpty();
  }

  @Test
  void wellKnownKubernetesLabelsAreAllowed() {
    assertThat(
            NodeFlags.parseLabels(
                "topology.kubernetes.io/zone=z1,kubernetes.io/hostname=h,"
                    + "foo.node.kubernetes.io/bar=x"))
        .hasSize(3);
  }

  static Stream<Arguments> badLabels() {
    return Stream.of(
        Arguments.of(named("no equals", "a=b,c"), "invalid node label \"c\": expected key=value"),
        Arguments.of(named("empty key", "=v"), "invalid node label \"=v\": key: must not be empty"),
        Arguments.of(named("bad key", "a b=c"), "invalid node label \"a b=c\": key: name part"),
        Arguments.of(named("bad prefix", "Ex.com/a=b"), "key: prefix part must be a lowercase"),
        Arguments.of(named("long value", "a=" + "v".repeat(64)), "value: must be no more than 63"),
        Arguments.of(
            named("kubernetes.io label a kubelet may not set", "node-role.kubernetes.io/master="),
            "unknown 'kubernetes.io' or 'k8s.io' labels [node-role.kubernetes.io/master]"),
        Arguments.of(
            named("k8s.io label", "k8s.io/x=y"),
            "unknown 'kubernetes.io' or 'k8s.io' labels [k8s.io/x]"));
  }

  @ParameterizedTest
  @MethodSource
  void badLabels(String spec, String message) {
    assertThatThrownBy(() -> NodeFlags.parseLabels(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
