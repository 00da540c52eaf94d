package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFileBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.TestPods;
import io.jkubelet.agent.env.NodeAllocatable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DownwardApiTest {
  private static final NodeAllocatable NODE = new NodeAllocatable(4000, 8L << 30, 100L << 30);

  private static Pod pod() {
    return TestPods.builder("ns", "p", "u1")
        .editMetadata()
        .withLabels(Map.of("b", "2", "a", "say \"hi\"\n"))
        .withAnnotations(Map.of("k", "v"))
        .endMetadata()
        .editSpec()
        .addNewContainer()
        .withName("c")
        .withNewResources()
        .withLimits(Map.of("memory", new Quantity("64Mi")))
        .withRequests(Map.of("cpu", new Quantity("250m")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static DownwardAPIVolumeFile field(String path, String field) {
    return new DownwardAPIVolumeFileBuilder()
        .withPath(path)
        .withNewFieldRef()
        .withFieldPath(field)
        .endFieldRef()
        .build();
  }

  private static String data(Map<String, FileProjection> m, String k) {
    return new String(m.get(k).data(), StandardCharsets.UTF_8);
  }

  @Test
  void labelsAreSortedAndQuotedAsGoDoes() throws Exception {
    var m = DownwardApi.collect(List.of(field("labels", "metadata.labels")), pod(), 0644, NODE);
    assertThat(data(m, "labels")).isEqualTo("a=\"say \\\"hi\\\"\\n\"\nb=\"2\"");
  }

  @Test
  void metadataFieldsAndSubscripts() throws Exception {
    var m =
        DownwardApi.collect(
            List.of(
                field("name", "metadata.name"),
                field("dir/ns", "metadata.namespace"),
                field("uid", "metadata.uid"),
                field("k", "metadata.annotations['k']")),
            pod(),
            0400,
            NODE);
    assertThat(data(m, "name")).isEqualTo("p");
    assertThat(data(m, "dir/ns")).isEqualTo("ns");
    assertThat(data(m, "uid")).isEqualTo("u1");
    assertThat(data(m, "k")).isEqualTo("v");
    assertThat(m.get("name").mode()).isEqualTo(0400);
  }

  @Test
  void anUnsupportedFieldIsAnError() {
    assertThatThrownBy(
            () -> DownwardApi.collect(List.of(field("x", "spec.nodeName")), pod(), 0644, NODE))
        .hasMessage("unsupported fieldPath: spec.nodeName");
  }

  @ParameterizedTest(name = "{0} / {1}")
  @CsvSource({
    "limits.memory, 1, 67108864",
    "limits.memory, 1Mi, 64",
    "requests.cpu, 1m, 250",
    "requests.cpu, 1, 1",
    "limits.cpu, 1, 4",
    "limits.cpu, 1m, 4000",
  })
  void resources(String resource, String divisor, String expected) throws Exception {
    var item = resource("r", "c", resource, divisor);
    assertThat(data(DownwardApi.collect(List.of(item), pod(), 0644, NODE), "r"))
        .isEqualTo(expected);
  }

  @Test
  void aZeroLimitIsTheNodesAllocatableAndHugePagesAreReadAsTheEnvironmentReadsThem()
      throws Exception {
    Pod pod =
        new PodBuilder(pod())
            .editSpec()
            .addNewInitContainer()
            .withName("init")
            .withNewResources()
            .withLimits(Map.of("memory", new Quantity("0"), "hugepages-2Mi", new Quantity("4Mi")))
            .endResources()
            .endInitContainer()
            .endSpec()
            .build();
    var items =
        List.of(
            resource("m", "init", "limits.memory", "1Mi"),
            resource("h", "init", "limits.hugepages-2Mi", "1Mi"));

    var files = DownwardApi.collect(items, pod, 0644, NODE);

    assertThat(data(files, "m")).isEqualTo("8192");
    assertThat(data(files, "h")).isEqualTo("4");
  }

  private static DownwardAPIVolumeFile resource(
      String path, String container, String resource, String divisor) {
    return new DownwardAPIVolumeFileBuilder()
        .withPath(path)
        .withNewResourceFieldRef()
        .withContainerName(container)
        .withResource(resource)
        .withDivisor(new Quantity(divisor))
        .endResourceFieldRef()
        .build();
  }
}
