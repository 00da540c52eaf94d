package io.jkubelet.agent.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's keyring cases ({@code pkg/credentialprovider/keyring_test.go}, v1.20). */
class KeyringTest {
  private static final AuthConfig FOO = new AuthConfig("foo", "bar", "foo@bar.baz");

  static Stream<Arguments> urlsMatch() {
    return Stream.of(
        Arguments.of("*.kubernetes.io", "prefix.kubernetes.io", true),
        Arguments.of("prefix.*.io", "prefix.kubernetes.io", true),
        Arguments.of("prefix.kubernetes.*", "prefix.kubernetes.io", true),
        Arguments.of("*-good.kubernetes.io", "prefix-good.kubernetes.io", true),
        Arguments.of("*.kubernetes.io/blah", "prefix.kubernetes.io/blah", true),
        Arguments.of("prefix.*.io/foo", "prefix.kubernetes.io/foo/bar", true),
        Arguments.of("*.kubernetes.io:1111/blah", "prefix.kubernetes.io:1111/blah", true),
        Arguments.of("prefix.*.io:1111/foo", "prefix.kubernetes.io:1111/foo/bar", true),
        Arguments.of("*.kubernetes.io", "kubernetes.io", false),
        Arguments.of("*.*.kubernetes.io", "prefix.kubernetes.io", false),
        Arguments.of("*.*.kubernetes.io", "kubernetes.io", false),
        Arguments.of("kubernetes.io", "kubernetes.com", false),
        Arguments.of("k*.io", "quay.io", false),
        Arguments.of("*.kubernetes.io:1234/blah", "prefix.kubernetes.io:1111/blah", false),
        Arguments.of("prefix.*.io/foo", "prefix.kubernetes.io:1111/foo/bar", false),
        // Go's filepath.Match beyond '*': '?', classes, escapes; a bad pattern matches nothing.
        // NOTE: a '?' starts the URL's query, as in Go: the host is cut there.
        Arguments.of("reg?.example.com", "reg1.example.com", false),
        Arguments.of("reg?.example.com", "reg", true),
        Arguments.of("reg[0-9].example.com", "reg7.example.com", true),
        Arguments.of("reg[^0-9].example.com", "reg7.example.com", false),
        Arguments.of("reg[0-9.example.com", "reg7.example.com", false),
        Arguments.of("reg\\*.example.com", "regx.example.com", false),
        // A path is a string prefix, as upstream's strings.HasPrefix.
        Arguments.of("example.com/team", "example.com/teamwork/app", true),
        Arguments.of("example.com:5000", "example.com/app", false));
  }

  @ParameterizedTest(name = "{0} ~ {1}: {2}")
  @MethodSource
  void urlsMatch(String glob, String target, boolean expected) {
    assertThat(RegistryUrls.matches(glob, target)).isEqualTo(expected);
  }

  static Stream<Arguments> globHits() {
    return Stream.of(
        Arguments.of("https://hello.kubernetes.io", "hello.kubernetes.io"),
        Arguments.of("https://*.docker.io", "prefix.docker.io"),
        Arguments.of("https://prefix.*.io", "prefix.docker.io"),
        Arguments.of("https://prefix.docker.*", "prefix.docker.io"),
        Arguments.of("https://*.docker.io/path", "prefix.docker.io/path"),
        Arguments.of("https://prefix.*.io/path", "prefix.docker.io/path/subpath"),
        Arguments.of("https://prefix.docker.*/path", "prefix.docker.io/path"),
        Arguments.of("https://*.docker.io:8888", "prefix.docker.io:8888"),
        Arguments.of("https://prefix.*.io:8888", "prefix.docker.io:8888"),
        Arguments.of("https://prefix.docker.*:8888", "prefix.docker.io:8888"),
        Arguments.of("https://*.docker.io/path:1111", "prefix.docker.io/path:1111"),
        Arguments.of("https://*.docker.io/v1/", "prefix.docker.io/path:1111"),
        Arguments.of("https://*.docker.io/v2/", "prefix.docker.io/path:1111"),
        Arguments.of("https://prefix.docker.*/path:1111", "prefix.docker.io/path:1111"),
        Arguments.of("prefix.docker.io:1111", "prefix.docker.io:1111/path"),
        Arguments.of("*.docker.io:1111", "prefix.docker.io:1111/path"));
  }

  @ParameterizedTest(name = "{0} finds {1}")
  @MethodSource
  void globHits(String location, String target) throws Exception {
    assertThat(keyring(location).lookup(target + "/foo/bar")).containsExactly(FOO);
  }

  static Stream<Arguments> misses() {
    return Stream.of(
        Arguments.of("https://hello.kubernetes.io", "world.mesos.org/foo/bar"),
        Arguments.of("https://*.docker.com", "prefix.docker.io"),
        Arguments.of("https://suffix.*.io", "prefix.docker.io"),
        Arguments.of("https://prefix.docker.c*", "prefix.docker.io"),
        Arguments.of("https://prefix.*.io/path:1111", "prefix.docker.io/path/subpath:1111"),
        Arguments.of("suffix.*.io", "prefix.docker.io"));
  }

  @ParameterizedTest(name = "{0} misses {1}")
  @MethodSource
  void misses(String location, String target) throws Exception {
    assertThat(keyring(location).lookup(target + "/foo/bar")).isEmpty();
  }

  @Test
  void dockerHubCredentialsServeUnqualifiedAndQualifiedHubImagesOnly() throws Exception {
    Keyring hub = keyring("https://index.docker.io/v1/");
    assertThat(hub.lookup("world.mesos.org/foo/bar")).isEmpty();
    assertThat(hub.lookup("google/docker-registry")).containsExactly(FOO);
    assertThat(hub.lookup("jenkins")).containsExactly(FOO);
    assertThat(hub.lookup("index.docker.io/google/docker-registry")).containsExactly(FOO);
    // As the puller looks it up: normalized by ImageNames.
    assertThat(hub.lookup(ImageNames.repository("busybox:1.35"))).containsExactly(FOO);
  }

  @Test
  void isDefaultRegistryMatch() {
    assertThat(BasicKeyring.isDefaultRegistryMatch("foo/bar")).isTrue();
    assertThat(BasicKeyring.isDefaultRegistryMatch("docker.io/foo/bar")).isTrue();
    assertThat(BasicKeyring.isDefaultRegistryMatch("index.docker.io/foo/bar")).isTrue();
    assertThat(BasicKeyring.isDefaultRegistryMatch("foo")).isTrue();
    assertThat(BasicKeyring.isDefaultRegistryMatch("")).isFalse();
    assertThat(BasicKeyring.isDefaultRegistryMatch("registry.tld/foo/bar")).isFalse();
    assertThat(BasicKeyring.isDefaultRegistryMatch("registry:5000/foo/bar")).isFalse();
    assertThat(BasicKeyring.isDefaultRegistryMatch("myhostdocker.io/foo/bar")).isFalse();
  }

  static Stream<Arguments> longestPathFirst() {
    AuthConfig ada = new AuthConfig("ada", "smash", "ada@example.com");
    AuthConfig grace = new AuthConfig("grace", "squash", "grace@example.com");
    return Stream.of(
        Arguments.of("bar.example.com", List.of(ada)),
        Arguments.of("bar.example.com/pong", List.of(grace, ada)),
        Arguments.of("bar.example.com/ping", List.of(ada)),
        Arguments.of("bar.example.com/pongz", List.of(grace, ada)),
        Arguments.of("bar.example.com/pong/pang", List.of(grace, ada)),
        Arguments.of("example.com", List.of()),
        Arguments.of("foo.example.com", List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void longestPathFirst(String image, List<AuthConfig> expected) {
    AuthConfig ada = new AuthConfig("ada", "smash", "ada@example.com");
    AuthConfig grace = new AuthConfig("grace", "squash", "grace@example.com");
    BasicKeyring k =
        BasicKeyring.of(List.of(Map.of("bar.example.com/pong", grace, "bar.example.com", ada)));
    assertThat(k.lookup(image)).isEqualTo(expected);
  }

  @Test
  void aV1PathIsTheWholeRegistry() {
    AuthConfig rex = new AuthConfig("rex", "tiny arms", "rex@example.com");
    BasicKeyring k = BasicKeyring.of(List.of(Map.of("https://quay.io/v1/", rex)));
    assertThat(k.lookup("quay.io")).containsExactly(rex);
    assertThat(k.lookup("quay.io/foo")).containsExactly(rex);
    assertThat(k.lookup("quay.io/foo/bar")).containsExactly(rex);
  }

  @Test
  void aLocationThatIsNoUrlIsIgnored() {
    BasicKeyring k =
        BasicKeyring.of(List.of(Map.of("reg:port/x", FOO, "reg.example.com:5000", FOO)));
    assertThat(k.lookup("reg.example.com:5000/app")).containsExactly(FOO);
    assertThat(k.lookup("reg/x")).isEmpty();
  }

  @Test
  void theSameKeyFromTwoConfigsGivesBothInOrderAndAUnionKeepsKeyringOrder() {
    AuthConfig first = new AuthConfig("first", "1", "");
    AuthConfig second = new AuthConfig("second", "2", "");
    AuthConfig node = new AuthConfig("node", "3", "");
    Keyring pods =
        BasicKeyring.of(
            List.of(
                Map.of("https://reg.example.com:5000/v2/", first),
                Map.of("reg.example.com:5000", second)));
    Keyring union =
        Keyring.union(List.of(pods, BasicKeyring.of(List.of(Map.of("*.example.com:5000", node)))));
    assertThat(union.lookup("reg.example.com:5000/app")).containsExactly(first, second, node);
    assertThat(union.lookup("other.example.com:5000/app")).containsExactly(node);
    assertThat(union.lookup("reg.example.com/app")).isEmpty();
  }

  static Stream<Arguments> repositories() {
    return Stream.of(
        Arguments.of("busybox", "docker.io/library/busybox"),
        Arguments.of("busybox:1.35", "docker.io/library/busybox"),
        Arguments.of("jkubelet/busybox:1.35", "docker.io/jkubelet/busybox"),
        Arguments.of("index.docker.io/busybox", "docker.io/library/busybox"),
        Arguments.of("docker.io/team/app:1", "docker.io/team/app"),
        Arguments.of("localhost/app", "localhost/app"),
        Arguments.of("registry:5000/team/app:1", "registry:5000/team/app"),
        Arguments.of("10.0.0.1:5000/app@sha256:" + "a".repeat(64), "10.0.0.1:5000/app"),
        Arguments.of("quay.io/team/app:v1@sha256:" + "b".repeat(64), "quay.io/team/app"));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @MethodSource
  void repositories(String image, String repository) {
    assertThat(ImageNames.repository(image)).isEqualTo(repository);
  }

  private static Keyring keyring(String location) throws InvalidDockerConfig {
    String auth = Base64.getEncoder().encodeToString("foo:bar".getBytes(StandardCharsets.UTF_8));
    String json =
        "{\"" + location + "\": {\"email\": \"foo@bar.baz\", \"auth\": \"" + auth + "\"}}";
    return BasicKeyring.of(
        List.of(DockerConfigs.parseDockercfg(json.getBytes(StandardCharsets.UTF_8))));
  }
}
