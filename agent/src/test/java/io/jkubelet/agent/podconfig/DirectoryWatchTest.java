package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.podconfig.DirectoryWatch.Seen;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryWatchTest {
  @TempDir Path tmp;

  @Test
  void eachChangeOfAnEntryIsSeenOnceThenNothing() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("manifests"));
    try (DirectoryWatch w = DirectoryWatch.open(dir)) {
      assertThat(w.poll()).isEqualTo(Seen.NOTHING);
      Files.writeString(dir.resolve("a.yaml"), "x");
      assertThat(w.poll()).isEqualTo(Seen.CHANGE);
      assertThat(w.poll()).isEqualTo(Seen.NOTHING);
      Files.writeString(dir.resolve("a.yaml"), "y");
      assertThat(w.poll()).isEqualTo(Seen.CHANGE);
      Files.move(dir.resolve("a.yaml"), tmp.resolve("a.yaml"));
      assertThat(w.poll()).as("moved out").isEqualTo(Seen.CHANGE);
      Files.move(tmp.resolve("a.yaml"), dir.resolve("b.yaml"));
      assertThat(w.poll()).as("moved in").isEqualTo(Seen.CHANGE);
      Files.delete(dir.resolve("b.yaml"));
      assertThat(w.poll()).isEqualTo(Seen.CHANGE);
      Files.writeString(tmp.resolve("beside.yaml"), "x");
      assertThat(w.poll()).as("not in the directory").isEqualTo(Seen.NOTHING);
    }
  }

  @Test
  void theDirectoryRemovedOrMovedIsGone() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("manifests"));
    try (DirectoryWatch w = DirectoryWatch.open(dir)) {
      Files.writeString(dir.resolve("a.yaml"), "x");
      Files.delete(dir.resolve("a.yaml"));
      Files.delete(dir);
      assertThat(w.poll()).isEqualTo(Seen.GONE);
    }
    Files.createDirectory(dir);
    try (DirectoryWatch w = DirectoryWatch.open(dir)) {
      Files.move(dir, tmp.resolve("elsewhere"));
      assertThat(w.poll()).isEqualTo(Seen.GONE);
    }
  }

  @Test
  void onlyADirectoryCanBeWatchedAndAClosedWatchSaysSo() throws IOException {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    assertThatThrownBy(() -> DirectoryWatch.open(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Not a directory");
    assertThatThrownBy(() -> DirectoryWatch.open(tmp.resolve("missing")))
        .hasMessageContaining("No such file or directory");
    DirectoryWatch w = DirectoryWatch.open(tmp);
    w.close();
    w.close();
    assertThatThrownBy(w::poll).hasMessageContaining("is closed");
  }
}
