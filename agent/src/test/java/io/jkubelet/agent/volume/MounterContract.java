package io.jkubelet.agent.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What every {@link Mounter} does; run against {@link FakeMounter} and the system's. */
abstract class MounterContract {
  @TempDir Path dir;

  abstract Mounter mounter();

  @AfterEach
  void unmountWhatIsLeft() throws Exception {
    // Rounds: unmounting a bind of a dir onto itself uncovers the mounts it hid.
    for (int round = 0; round < 5 && !mounter().mountsUnder(dir).isEmpty(); round++) {
      for (Path p : mounter().mountsUnder(dir)) {
        mounter().unmount(p);
      }
    }
  }

  @Test
  void aTmpfsMountIsAMountPointUntilUnmounted() throws Exception {
    Path v = Files.createDirectories(dir.resolve("pods/u/volumes/x"));
    assertThat(mounter().isMountPoint(v)).isFalse();

    mounter().mountTmpfs(v, 1 << 20);
    assertThat(mounter().isMountPoint(v)).isTrue();
    assertThat(mounter().isMountPoint(v.getParent())).isFalse();

    mounter().unmount(v);
    assertThat(mounter().isMountPoint(v)).isFalse();
  }

  @Test
  void aDirMadeRSharedIsASharedMountPointWithTheMountsBelowItStillThere() throws Exception {
    Path root = Files.createDirectories(dir.resolve("root"));
    Path v = Files.createDirectories(root.resolve("pods/u/volumes/x"));
    mounter().mountTmpfs(v, 1 << 20);
    Files.writeString(v.resolve("f"), "kept");
    assertThat(mounter().isShared(root)).isFalse();

    mounter().makeRShared(root);
    mounter().makeRShared(root); // idempotent
    assertThat(mounter().isShared(root)).isTrue();
    assertThat(mounter().isShared(root.resolve("pods/u"))).isTrue();
    assertThat(mounter().isShared(dir)).isFalse();
    assertThat(mounter().isMountPoint(root)).isTrue();
    assertThat(mounter().isMountPoint(v)).isTrue();
    assertThat(v.resolve("f")).content().isEqualTo("kept");
  }

  @Test
  void mountsUnderListsTheDeepestFirst() throws Exception {
    Path outer = Files.createDirectories(dir.resolve("a"));
    mounter().mountTmpfs(outer, 0);
    Path inner = Files.createDirectories(outer.resolve("b"));
    mounter().mountTmpfs(inner, 0);
    Path other = Files.createDirectories(dir.resolve("other"));

    assertThat(mounter().mountsUnder(outer)).containsExactly(inner, outer);
    assertThat(mounter().mountsUnder(other)).isEmpty();
  }
}

class FakeMounterTest extends MounterContract {
  private final FakeMounter fake = new FakeMounter();

  @Override
  Mounter mounter() {
    return fake;
  }
}

/** The host's mount table; needs root, as jkubelet does. */
class SystemMounterTest extends MounterContract {
  private final Mounter system = Mounter.system();

  @Override
  Mounter mounter() {
    return system;
  }

  @Test
  void unescapesMountinfoPaths() {
    assertThat(SystemMounter.unescape("/a\\040b\\134c")).isEqualTo("/a b\\c");
  }
}
