package io.jkubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeletConfigurationTest {

  @Test
  void defaultsAreTheDocumentedValues() {
    KubeletConfiguration d = KubeletConfiguration.defaults();

    assertThat(d.pods().staticPods().staticPodPath()).isEmpty();
    assertThat(d.pods().lifecycle().syncFrequency()).isEqualTo(Duration.ofMinutes(1));
    assertThat(d.pods().staticPods().fileCheckFrequency()).isEqualTo(Duration.ofSeconds(20));
    assertThat(d.pods().staticPods().httpCheckFrequency()).isEqualTo(Duration.ofSeconds(20));
    assertThat(d.pods().staticPods().staticPodURL()).isEmpty();
    assertThat(d.pods().staticPods().staticPodURLHeader()).isEmpty();
    assertThat(d.server().readOnlyPort()).isEqualTo(10255);
    assertThat(d.server().port()).isEqualTo(10250);
    assertThat(d.server().address()).isEqualTo("0.0.0.0");
    assertThat(d.pods().maxPods()).isEqualTo(110);
    assertThat(d.node().status().nodeStatusUpdateFrequency()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.node().status().nodeStatusReportFrequency()).isEqualTo(Duration.ofMinutes(5));
    assertThat(d.node().status().nodeLeaseDurationSeconds()).isEqualTo(40);
    assertThat(d.events().eventRecordQPS()).isEqualTo(5);
    assertThat(d.events().eventBurst()).isEqualTo(10);
    assertThat(d.events().eventSpamBurst()).isEqualTo(25);
    assertThat(d.events().eventSpamRefillPeriod()).isEqualTo(Duration.ofMinutes(5));
    assertThat(d.client().kubeAPIQPS()).isEqualTo(5);
    assertThat(d.client().kubeAPIBurst()).isEqualTo(10);
    assertThat(d.client().contentType()).isEqualTo("application/vnd.kubernetes.protobuf");
    assertThat(d.server().tls().tlsCipherSuites()).isEmpty();
    assertThat(d.server().tls().tlsMinVersion()).isEmpty();
    assertThat(d.node().registerNode()).isTrue();
    assertThat(d.pods().podInfraOomScoreAdj()).isZero();
  }

  @Test
  void flagsOverlaidWithTheBuilderOverrideFileValuesAndKeepTheRest(@TempDir Path dir)
      throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("kubelet.yaml"),
            """
            apiVersion: kubelet.config.k8s.io/v1beta1
            kind: KubeletConfiguration
            maxPods: 50
            port: 11250
            syncFrequency: 30s
            readOnlyPort: 10255
            """);
    KubeletConfiguration fromFile = ConfigLoader.load(file).config();

    KubeletConfiguration withFlags =
        fromFile.toBuilder()
            .set("maxPods", 200)
            .set("readOnlyPort", 0)
            .set("podInfraOomScoreAdj", -998)
            .build();

    assertThat(withFlags)
        .isEqualTo(
            KubeletConfiguration.fileBuilder()
                .set("maxPods", 200)
                .set("readOnlyPort", 0)
                .set("port", 11250)
                .set("podInfraOomScoreAdj", -998)
                .set("syncFrequency", Duration.ofSeconds(30))
                .build());
    assertThat(fromFile.pods().maxPods()).as("the loaded configuration is unchanged").isEqualTo(50);
  }

  @Test
  void toBuilderCopiesEveryField() {
    KubeletConfiguration full = Samples.full();

    assertThat(full.toBuilder().build()).isEqualTo(full);
  }

  @Test
  void headersAreCopiedAndUnmodifiable() {
    List<String> values = new ArrayList<>(List.of("Bearer abc"));
    Map<String, List<String>> headers = new HashMap<>(Map.of("Authorization", values));

    KubeletConfiguration config =
        KubeletConfiguration.builder().set("staticPodURLHeader", headers).build();
    headers.put("X-Other", List.of("x"));
    values.add("Bearer def");

    assertThat(config.pods().staticPods().staticPodURLHeader())
        .isEqualTo(Map.of("Authorization", List.of("Bearer abc")));
    assertThatThrownBy(() -> config.pods().staticPods().staticPodURLHeader().put("X", List.of()))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(
            () -> config.pods().staticPods().staticPodURLHeader().get("Authorization").add("y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void nullReferenceFieldsAreRejectedByName() {
    assertThatThrownBy(() -> KubeletConfiguration.builder().set("address", null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("address");
    assertThatThrownBy(() -> KubeletConfiguration.builder().set("syncFrequency", null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("syncFrequency");
  }
}
