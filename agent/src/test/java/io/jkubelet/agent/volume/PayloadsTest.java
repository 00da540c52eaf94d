package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PayloadsTest {
  private static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  private static final Secret SECRET =
      new SecretBuilder()
          .withNewMetadata()
          .withName("s")
          .withNamespace("ns")
          .endMetadata()
          .withData(
              Map.of(
                  "user", b64("admin".getBytes(StandardCharsets.UTF_8)),
                  "bin", b64(new byte[] {0, (byte) 0xff, 10})))
          .build();

  private static final ConfigMap CM =
      new ConfigMapBuilder()
          .withNewMetadata()
          .withName("c")
          .withNamespace("ns")
          .endMetadata()
          .withData(Map.of("text", "hello"))
          .withBinaryData(Map.of("blob", b64(new byte[] {1, 2, 3})))
          .build();

  private static KeyToPath item(String key, String path, Integer mode) {
    return new KeyToPath(key, mode, path);
  }

  @Test
  void withoutItemsEveryKeyIsAFileWithTheDefaultMode() throws Exception {
    var p = Payloads.secret(null, SECRET, 0400, false);
    assertThat(p).containsOnlyKeys("user", "bin");
    assertThat(p.get("bin").data()).containsExactly(0, 0xff, 10);
    assertThat(p.get("user").mode()).isEqualTo(0400);
  }

  @Test
  void itemsMapKeysToPathsWithTheirModes() throws Exception {
    var p =
        Payloads.secret(
            List.of(item("user", "cfg/name", 0600), item("bin", "b", null)), SECRET, 0644, false);
    assertThat(p).containsOnlyKeys("cfg/name", "b");
    assertThat(p.get("cfg/name").mode()).isEqualTo(0600);
    assertThat(p.get("b").mode()).isEqualTo(0644);
  }

  @Test
  void aMissingKeyFailsUnlessOptional() throws Exception {
    assertThatThrownBy(() -> Payloads.secret(List.of(item("nope", "x", null)), SECRET, 0644, false))
        .hasMessage("references non-existent secret key: nope");
    assertThat(Payloads.secret(List.of(item("nope", "x", null)), SECRET, 0644, true)).isEmpty();
    assertThatThrownBy(() -> Payloads.configMap(List.of(item("nope", "x", null)), CM, 0644, false))
        .hasMessage("configmap references non-existent config key: nope");
  }

  @Test
  void configMapsProjectDataAndBinaryData() throws Exception {
    var p = Payloads.configMap(null, CM, 0644, false);
    assertThat(new String(p.get("text").data(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(p.get("blob").data()).containsExactly(1, 2, 3);
  }

  @Test
  void aMissingOptionalObjectIsEmpty() throws Exception {
    assertThat(Payloads.secret(null, null, 0644, true)).isEmpty();
    assertThat(Payloads.configMap(null, null, 0644, true)).isEmpty();
  }
}
