package io.jkubelet.agent.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatFsTest {
  @TempDir Path dir;

  @Test
  void readsTheSameFileSystemTheJdkFindsWithInodes() throws IOException {
    FileStore jdk = Files.getFileStore(dir);
    StatFs fs = StatFs.of(dir);

    assertThat(fs.capacityBytes()).isEqualTo(jdk.getTotalSpace());
    assertThat(fs.availableBytes()).isPositive().isLessThanOrEqualTo(fs.freeBytes());
    assertThat(fs.freeBytes()).isLessThanOrEqualTo(fs.capacityBytes());
    assertThat(fs.inodes()).as("statvfs gives inodes, the JDK does not").isPositive();
    assertThat(fs.inodesFree()).isPositive().isLessThanOrEqualTo(fs.inodes());
  }

  @Test
  void aPathNotMadeYetIsReadFromItsNearestExistingParent() throws IOException {
    Path missing = dir.resolve("pods/uid/volumes");

    assertThat(StatFs.ofExisting(missing).capacityBytes())
        .isEqualTo(StatFs.of(dir).capacityBytes());
    assertThatThrownBy(() -> StatFs.of(missing)).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void twoPathsAreOnOneFileSystemWhenTheirDeviceIsTheSame() throws IOException {
    assertThat(StatFs.sameFileSystem(dir.resolve("not/made/yet"), dir)).isTrue();
    assertThat(StatFs.sameFileSystem(dir, Path.of("/proc"))).as("procfs is its own").isFalse();
  }
}
