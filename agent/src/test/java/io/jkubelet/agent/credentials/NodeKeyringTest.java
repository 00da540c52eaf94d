package io.jkubelet.agent.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeKeyringTest {
  @TempDir Path dir;

  private final FakeClock clock = new FakeClock();

  private NodeKeyring keyring() throws IOException {
    Path root = Files.createDirectories(dir.resolve("root"));
    Path cwd = Files.createDirectories(dir.resolve("cwd"));
    Path home = Files.createDirectories(dir.resolve("home"));
    return new NodeKeyring(NodeKeyring.SearchPaths.upstream(root, cwd, home), clock);
  }

  private static String configJson(String user) {
    return "{\"auths\": {\"reg.example.com:5000\": {\"username\": \""
        + user
        + "\","
        + " \"password\": \"pw\"}}}";
  }

  private String userFor(NodeKeyring k) {
    var found = k.lookup("reg.example.com:5000/app");
    return found.isEmpty() ? null : found.get(0).username();
  }

  @Test
  void theRootDirectoryComesFirstThenTheWorkingDirectoryThenHome() throws IOException {
    NodeKeyring k = keyring();
    assertThat(userFor(k)).isNull();
    Files.createDirectories(dir.resolve("home/.docker"));
    Files.writeString(dir.resolve("home/.docker/config.json"), configJson("home"));
    Files.writeString(dir.resolve("cwd/config.json"), configJson("cwd"));
    Files.writeString(dir.resolve("root/config.json"), configJson("root"));
    assertThat(userFor(k)).as("kept for five minutes").isNull();

    clock.step(NodeKeyring.LIFETIME);
    assertThat(userFor(k)).isEqualTo("root");

    Files.delete(dir.resolve("root/config.json"));
    clock.step(NodeKeyring.LIFETIME);
    assertThat(userFor(k)).isEqualTo("cwd");

    Files.writeString(dir.resolve("cwd/config.json"), "{not json");
    clock.step(NodeKeyring.LIFETIME);
    assertThat(userFor(k)).as("a file that does not parse is skipped").isEqualTo("home");
  }

  @Test
  void aLegacyDockercfgServesWhenNoConfigJsonDoes() throws IOException {
    NodeKeyring k = keyring();
    Files.writeString(
        dir.resolve("home/.dockercfg"),
        "{\"https://reg.example.com:5000\": {\"auth\": \"bGVnYWN5OnB3\"}}");
    assertThat(userFor(k)).isEqualTo("legacy");
    assertThat(k.lookup("other.example.com/app")).isEmpty();

    Files.writeString(dir.resolve("root/config.json"), configJson("json"));
    clock.step(Duration.ofMinutes(5));
    assertThat(userFor(k)).isEqualTo("json");
  }
}
