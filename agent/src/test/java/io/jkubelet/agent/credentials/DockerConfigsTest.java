package io.jkubelet.agent.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's config and pull-secret cases ({@code pkg/credentialprovider/config_test.go} and {@code
 * secrets/secrets_test.go}, v1.20).
 */
class DockerConfigsTest {
  private static final AuthConfig USER = new AuthConfig("user", "password", "");

  static Stream<Arguments> authFields() {
    return Stream.of(
        Arguments.of("padded", "Zm9vOmJhcg==", "foo:bar"),
        Arguments.of("not padded", "Zm9vOmJhcg", "foo:bar"),
        Arguments.of("with line breaks", "Zm9vOm\nJhcg==\n", "foo:bar"),
        Arguments.of("a colon in the password", b64("foo:b:ar"), "foo:b:ar"),
        Arguments.of("no colon", "cGFudHM=", null),
        Arguments.of("a trailing space", "Zm9vOmJhcg== ", null),
        Arguments.of("not base64", "pants", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void authFields(String name, String field, String expected) throws Exception {
    if (expected == null) {
      assertThatThrownBy(() -> DockerConfigs.decodeAuth(field))
          .isInstanceOf(InvalidDockerConfig.class);
      return;
    }
    assertThat(String.join(":", DockerConfigs.decodeAuth(field))).isEqualTo(expected);
  }

  static Stream<Arguments> entries() {
    return Stream.of(
        Arguments.of(
            "the fields",
            "{\"username\": \"foo\", \"password\": \"bar\", \"email\": \"foo@example.com\"}",
            new AuthConfig("foo", "bar", "foo@example.com")),
        Arguments.of(
            "auth decoded",
            "{\"auth\": \"Zm9vOmJhcg==\", \"email\": \"foo@example.com\"}",
            new AuthConfig("foo", "bar", "foo@example.com")),
        Arguments.of(
            "auth wins over username and password",
            "{\"username\": \"foo\", \"password\": \"bar\", \"auth\": \"cGluZzpwb25n\"}",
            new AuthConfig("ping", "pong", "")),
        Arguments.of(
            "field names in any case, unknown ones ignored",
            "{\"Username\": \"foo\", \"PASSWORD\": \"bar\", \"identitytoken\": \"x\"}",
            new AuthConfig("foo", "bar", "")),
        Arguments.of("a bad auth", "{\"auth\": \"pants\"}", null),
        Arguments.of("a field of the wrong type", "{\"email\": false}", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void entries(String name, String entry, AuthConfig expected) throws Exception {
    byte[] cfg = ("{\"reg.example.com\": " + entry + "}").getBytes(StandardCharsets.UTF_8);
    if (expected == null) {
      assertThatThrownBy(() -> DockerConfigs.parseDockercfg(cfg))
          .isInstanceOf(InvalidDockerConfig.class);
      return;
    }
    assertThat(DockerConfigs.parseDockercfg(cfg))
        .containsExactly(Map.entry("reg.example.com", expected));
  }

  @Test
  void aConfigJsonHasItsRegistriesUnderAuthsAndTruncatedJsonFails() throws Exception {
    String json =
        "{\"auths\": {\"http://foo.example.com\":{\"username\": \"foo\", \"password\": \"bar\","
            + " \"email\": \"foo@example.com\"}, \"http://bar.example.com\":{\"username\": \"bar\","
            + " \"password\": \"baz\", \"email\": \"bar@example.com\"}}, \"credsStore\": \"x\"}";
    assertThat(DockerConfigs.parseConfigJson(json.getBytes(StandardCharsets.UTF_8)))
        .containsExactly(
            Map.entry("http://foo.example.com", new AuthConfig("foo", "bar", "foo@example.com")),
            Map.entry("http://bar.example.com", new AuthConfig("bar", "baz", "bar@example.com")));
    assertThat(DockerConfigs.parseConfigJson("{}".getBytes(StandardCharsets.UTF_8))).isEmpty();
    byte[] truncated = json.substring(0, json.length() - 3).getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> DockerConfigs.parseConfigJson(truncated))
        .isInstanceOf(InvalidDockerConfig.class);
    assertThatThrownBy(() -> DockerConfigs.parseDockercfg("[]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidDockerConfig.class);
  }

  static Stream<Arguments> secrets() {
    String jsonAuth = "{\"auths\": {\"test.registry.io\": {\"auth\": \"dXNlcjpwYXNzd29yZA==\"}}}";
    String jsonFields =
        "{\"auths\": {\"test.registry.io\": {\"username\": \"user\", \"password\": \"password\"}}}";
    String cfgAuth = "{\"test.registry.io\": {\"auth\": \"dXNlcjpwYXNzd29yZA==\"}}";
    String cfgFields =
        "{\"test.registry.io\": {\"username\": \"user\", \"password\": \"password\"}}";
    String json = PullSecrets.TYPE_DOCKER_CONFIG_JSON;
    String cfg = PullSecrets.TYPE_DOCKERCFG;
    String jsonKey = PullSecrets.KEY_DOCKER_CONFIG_JSON;
    String cfgKey = PullSecrets.KEY_DOCKERCFG;
    return Stream.of(
        Arguments.of(".dockerconfigjson, auth", secret(json, jsonKey, jsonAuth), List.of(USER)),
        Arguments.of(".dockercfg, auth", secret(cfg, cfgKey, cfgAuth), List.of(USER)),
        Arguments.of(".dockerconfigjson, fields", secret(json, jsonKey, jsonFields), List.of(USER)),
        Arguments.of(".dockercfg, fields", secret(cfg, cfgKey, cfgFields), List.of(USER)),
        Arguments.of(".dockerconfigjson in a dockercfg", secret(cfg, jsonKey, jsonAuth), List.of()),
        Arguments.of(".dockercfg in a dockerconfigjson", secret(json, cfgKey, cfgAuth), List.of()),
        Arguments.of("an Opaque secret", secret("Opaque", jsonKey, jsonAuth), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void secrets(String name, Secret secret, List<AuthConfig> expected) throws Exception {
    assertThat(PullSecrets.keyring(List.of(secret), Keyring.EMPTY).lookup("test.registry.io"))
        .isEqualTo(expected);
  }

  @Test
  void thePodsSecretsComeBeforeTheNodesWhichAloneServesWhatTheyDoNotMatch() throws Exception {
    AuthConfig node = new AuthConfig("default-user", "default-password", "");
    Keyring nodeKeyring = r -> List.of(node);
    String other = "{\"auths\": {\"foobar.io\": {\"auth\": \"dXNlcjpwYXNzd29yZA==\"}}}";
    String mine = "{\"auths\": {\"test.registry.io\": {\"auth\": \"dXNlcjpwYXNzd29yZA==\"}}}";
    List<Secret> secrets =
        List.of(
            secret(PullSecrets.TYPE_DOCKER_CONFIG_JSON, PullSecrets.KEY_DOCKER_CONFIG_JSON, other),
            secret(PullSecrets.TYPE_DOCKER_CONFIG_JSON, PullSecrets.KEY_DOCKER_CONFIG_JSON, mine));
    assertThat(PullSecrets.keyring(secrets, nodeKeyring).lookup("test.registry.io/app"))
        .containsExactly(USER, node);
    assertThat(PullSecrets.keyring(secrets, nodeKeyring).lookup("elsewhere.io/app"))
        .containsExactly(node);
    assertThat(PullSecrets.keyring(List.of(), nodeKeyring)).isSameAs(nodeKeyring);
  }

  @Test
  void aSecretWhoseConfigIsBrokenFailsTheLookup() {
    Secret broken =
        secret(
            PullSecrets.TYPE_DOCKER_CONFIG_JSON, PullSecrets.KEY_DOCKER_CONFIG_JSON, "{\"auths\"");
    assertThatThrownBy(() -> PullSecrets.keyring(List.of(broken), Keyring.EMPTY))
        .isInstanceOf(InvalidDockerConfig.class);
  }

  @Test
  void aCredentialPrintsWithoutItsPassword() {
    assertThat(new AuthConfig("user", "s3cret", "")).asString().doesNotContain("s3cret");
  }

  private static Secret secret(String type, String key, String json) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName("pull")
        .withNamespace("ns")
        .endMetadata()
        .withType(type)
        .withData(Map.of(key, b64(json)))
        .build();
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
