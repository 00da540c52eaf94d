package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fsGroup ownership; chown needs root, as jkubelet does. */
class OwnershipTest {
  @TempDir Path root;

  private static int gid(Path p) throws Exception {
    return (int) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
  }

  private static int mode(Path p) throws Exception {
    return (int) Files.getAttribute(p, "unix:mode") & 07777;
  }

  @Test
  void groupGroupBitsAndSetgidOnDirectoriesLinksLeftAlone() throws Exception {
    Path sub = Files.createDirectories(root.resolve("sub"));
    Files.setAttribute(sub, "unix:mode", 0700);
    Path file = Files.writeString(sub.resolve("f"), "x");
    Files.setAttribute(file, "unix:mode", 0600);
    Path link = Files.createSymbolicLink(root.resolve("l"), Path.of("sub/f"));

    Ownership.apply(root, 2345, false, null);

    assertThat(gid(sub)).isEqualTo(2345);
    assertThat(gid(file)).isEqualTo(2345);
    assertThat(gid(link)).isEqualTo(2345);
    assertThat(mode(sub)).isEqualTo(02770);
    assertThat(mode(file)).isEqualTo(0660);
  }

  @Test
  void readOnlyVolumesGetGroupReadOnly() throws Exception {
    Path file = Files.writeString(root.resolve("f"), "x");
    Files.setAttribute(file, "unix:mode", 0400);
    Ownership.apply(root, 2345, true, null);
    assertThat(mode(file)).isEqualTo(0440);
  }

  @Test
  void onRootMismatchLeavesAVolumeWhoseRootMatchesAlone() throws Exception {
    Ownership.apply(root, 2345, false, null);
    Path later = Files.writeString(root.resolve("later"), "x");
    Files.setAttribute(later, "unix:mode", 0600);
    Files.setAttribute(later, "unix:gid", 0);

    Ownership.apply(root, 2345, false, Ownership.ON_ROOT_MISMATCH);
    assertThat(gid(later)).isZero();

    Ownership.apply(root, 2345, false, "Always");
    assertThat(gid(later)).isEqualTo(2345);
  }
}
