package io.jkubelet.agent.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataArchiveTest {
  @TempDir Path dir;
  private final FakeSchedulers schedulers = new FakeSchedulers(new FakeClock());
  private final List<Path> dumpedTo = new ArrayList<>();

  private ClassDataArchive archive(ClassDataArchive.Dumper dumper) {
    return new ClassDataArchive(
        new ClassDataArchive.Options(dir.resolve("kubelet.jsa"), ClassDataArchive.AFTER),
        dumper,
        schedulers);
  }

  private final ClassDataArchive.Dumper writes =
      file -> {
        dumpedTo.add(file);
        Files.writeString(file, "archive");
      };

  @Test
  void theArchiveIsWrittenOnceTwoMinutesAfterTheStart() throws Exception {
    ClassDataArchive archive = archive(writes);
    archive.start();
    assertThat(archive.healthy().ok()).isTrue();

    schedulers.advance(ClassDataArchive.AFTER.minusSeconds(1));
    assertThat(dir.resolve("kubelet.jsa")).as("not before two minutes").doesNotExist();

    schedulers.advance(Duration.ofSeconds(1));
    assertThat(dir.resolve("kubelet.jsa")).hasContent("archive");
    assertThat(archive.written()).isTrue();
    assertThat(dumpedTo).as("dumped beside it, then renamed").hasSize(1);
    assertThat(dumpedTo.get(0)).isNotEqualTo(dir.resolve("kubelet.jsa"));
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(dir.resolve("kubelet.jsa"));
    }

    schedulers.advance(Duration.ofHours(1));
    assertThat(dumpedTo).as("once").hasSize(1);
    archive.stop();
  }

  @Test
  void aRunStoppedBeforeTwoMinutesWritesNothing() {
    ClassDataArchive archive = archive(writes);
    archive.start();
    schedulers.advance(Duration.ofSeconds(30));
    archive.stop();

    schedulers.advance(Duration.ofMinutes(5));
    assertThat(dumpedTo).isEmpty();
    assertThat(dir.resolve("kubelet.jsa")).doesNotExist();
  }

  @Test
  void aFailedDumpLeavesNoPartialArchiveAndTheAgentRuns() {
    ClassDataArchive archive =
        archive(
            file -> {
              Files.writeString(file, "half an arch");
              throw new IllegalStateException("Dynamic dump failed");
            });
    archive.start();
    schedulers.advance(ClassDataArchive.AFTER);

    assertThat(archive.written()).isFalse();
    assertThat(archive.healthy().ok()).isTrue();
    assertThat(dir).isEmptyDirectory();
    archive.stop();
  }

  @Test
  void onlyTheLaunchersPropertyAsksForAnArchive() {
    String before = System.getProperty(ClassDataArchive.PROPERTY);
    try {
      System.clearProperty(ClassDataArchive.PROPERTY);
      assertThat(ClassDataArchive.fromLauncher(schedulers)).isEmpty();
      System.setProperty(ClassDataArchive.PROPERTY, dir.resolve("a.jsa").toString());
      assertThat(ClassDataArchive.fromLauncher(schedulers)).isPresent();
    } finally {
      if (before == null) {
        System.clearProperty(ClassDataArchive.PROPERTY);
      } else {
        System.setProperty(ClassDataArchive.PROPERTY, before);
      }
    }
  }
}
