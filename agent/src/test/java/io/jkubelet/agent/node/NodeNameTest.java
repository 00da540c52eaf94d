package io.jkubelet.agent.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeNameTest {
  @TempDir Path tmp;

  private Path kernel(String content) throws Exception {
    return Files.writeString(tmp.resolve("hostname"), content);
  }

  @Test
  void theKernelsHostNameTrimmedAndLowerCasedWithNoResolution() throws Exception {
    // A name no resolver knows: upstream takes it as it is, and so does jkubelet.
    assertThat(NodeName.of(null, kernel("Debian-Guest-Unresolvable\n")))
        .isEqualTo("debian-guest-unresolvable");
    assertThat(NodeName.of("", kernel("vm\n"))).as("an empty override is none").isEqualTo("vm");
  }

  @Test
  void theOverrideWinsTrimmedAndLowerCased() throws Exception {
    assertThat(NodeName.of(" Node-A ", kernel("vm\n"))).isEqualTo("node-a");
  }

  @Test
  void noNameIsUpstreamsError() throws Exception {
    assertThatThrownBy(() -> NodeName.of(null, kernel("  \n")))
        .hasMessage("empty hostname is invalid");
    assertThatThrownBy(() -> NodeName.of("   ", kernel("vm\n")))
        .hasMessage("empty hostname is invalid");
    assertThatThrownBy(() -> NodeName.of(null, tmp.resolve("missing")))
        .hasMessageStartingWith("couldn't determine hostname: ");
  }

  @Test
  void thisHostsNameIsUnameN() throws Exception {
    String uname =
        new String(new ProcessBuilder("uname", "-n").start().getInputStream().readAllBytes())
            .strip();
    assertThat(NodeName.of(null)).isEqualTo(uname.toLowerCase(java.util.Locale.ROOT));
    assertThat(NodeName.kernelHostname()).isEqualTo(uname);
  }
}
