package io.jkubelet.agent.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.fake.FakeImageService;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ImageGcManager} on {@link FakeImageService} (a disk of 100,000 bytes whose free space
 * grows by an image's size when it goes) and a fake clock: which images go, in which order, and the
 * events on the Node.
 */
class ImageGcManagerTest {
  private static final Duration PERIOD = ImageGcManager.PERIOD;
  private static final String PAUSE = "k8s.gcr.io/pause:3.2";

  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final FakeImageService images = new FakeImageService();
  private final List<String> events = new ArrayList<>();
  private final EventRecorder recorder =
      (ref, type, reason, message) -> {
        assertThat(ref.getKind()).isEqualTo("Node");
        events.add(type + " " + reason + ": " + message);
      };

  private ImageGcManager manager(int high, int low, Duration minAge) {
    return new RealImageGcManager(
        new ImageGcManager.Options(
            new ImageGcPolicy(high, low, minAge), PAUSE, Refs.node("n1"), PERIOD),
        images,
        recorder,
        clock,
        schedulers);
  }

  @Test
  void overTheHighThresholdUnusedImagesGoLeastRecentlyUsedFirstDownToTheLowThreshold() {
    images.setDisk(100_000, 100_000);
    String pause = images.add(1_000, PAUSE);
    String usedByAnyone = images.add(10_000, "other/tool:1");
    images.use(usedByAnyone); // a container that is not jkubelet's
    String recentlyUsed = images.add(10_000, "app:recent");
    String container = images.use(recentlyUsed);
    String neverUsedOld = images.add(10_000, "app:old");
    ImageGcManager gc = manager(60, 40, Duration.ZERO);
    gc.start();
    schedulers.runDue(); // the first detection: these count as detected at the epoch
    images.removeContainer(container); // recentlyUsed: last used at the start
    String neverUsedNewer = images.add(10_000, "app:newer"); // detected at the next run
    images.setDisk(100_000, 35_000); // 65 % used, over 60 %

    schedulers.advance(PERIOD);

    // Wanted 100,000 * 60 % - 35,000 = 25,000: three images of 10,000 go, the never-used first,
    // the one detected first before the other.
    assertThat(images.removed()).containsExactly(neverUsedOld, neverUsedNewer, recentlyUsed);
    assertThat(images.imageId(PAUSE)).contains(pause);
    assertThat(images.imageId("other/tool:1")).contains(usedByAnyone);
    assertThat(events).isEmpty();
    assertThat(gc.stats()).isEqualTo(new ImageGcManager.Stats(3, 30_000, 0, 1));
  }

  @Test
  void belowTheHighThresholdNothingGoes() {
    images.setDisk(100_000, 50_000);
    images.add(10_000, "app:1");
    ImageGcManager gc = manager(85, 80, Duration.ZERO);
    gc.start();
    schedulers.runDue();
    schedulers.advance(PERIOD.multipliedBy(3));
    assertThat(images.removed()).isEmpty();
    assertThat(gc.stats().runsOverThreshold()).isZero();
  }

  @Test
  void anImageYoungerThanTheMinimumAgeStays() {
    images.setDisk(100_000, 100_000);
    ImageGcManager gc = manager(50, 10, Duration.ofMinutes(2));
    gc.start();
    schedulers.runDue();
    String young = images.add(10_000, "app:young"); // first detected at the next run
    images.setDisk(100_000, 10_000);

    schedulers.advance(PERIOD); // detected now: age 0
    assertThat(images.removed()).isEmpty();

    schedulers.advance(PERIOD); // detected 5 minutes ago
    assertThat(images.removed()).containsExactly(young);
  }

  @Test
  void aTargetThatCannotBeReachedIsReportedOnceWhileNothingChanges() {
    images.setDisk(100_000, 100_000);
    String used = images.add(10_000, "app:used");
    images.use(used);
    ImageGcManager gc = manager(50, 10, Duration.ZERO);
    images.setDisk(100_000, 20_000);

    gc.start();
    schedulers.advance(PERIOD.multipliedBy(4)); // five runs, nothing freed, nothing changed

    assertThat(events)
        .containsExactly(
            "Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images."
                + " Wanted to free 70000 bytes, but freed 0 bytes");

    images.add(5_000, "app:new"); // the situation changes: a new image (which takes 5,000)
    schedulers.advance(PERIOD);
    assertThat(gc.stats().deletedImages()).isEqualTo(1); // min age 0: it goes at once
    assertThat(events)
        .hasSize(3)
        .endsWith(
            "Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images."
                + " Wanted to free 75000 bytes, but freed 5000 bytes",
            "Warning ImageGCFailed: failed to garbage collect required amount of images."
                + " Wanted to free 75000 bytes, but freed 5000 bytes");
  }

  @Test
  void aRunThatFreesSomeButNotEnoughReportsEachTimeAndImageGcFailedFromTheSecond() {
    images.setDisk(100_000, 100_000);
    ImageGcManager gc = manager(50, 10, Duration.ZERO);
    gc.start();
    schedulers.runDue();
    images.add(1_000, "app:a");
    images.setDisk(100_000, 20_000);
    schedulers.advance(PERIOD);
    images.add(1_000, "app:b");
    images.setDisk(100_000, 20_000);
    schedulers.advance(PERIOD);

    assertThat(events)
        .containsExactly(
            "Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images."
                + " Wanted to free 70000 bytes, but freed 1000 bytes",
            "Warning FreeDiskSpaceFailed: failed to garbage collect required amount of images."
                + " Wanted to free 70000 bytes, but freed 1000 bytes",
            "Warning ImageGCFailed: failed to garbage collect required amount of images."
                + " Wanted to free 70000 bytes, but freed 1000 bytes");
  }

  @Test
  void aDeletionTheEngineRefusesIsCountedAndTheOthersStillGo() {
    images.setDisk(100_000, 100_000);
    String refused = images.add(10_000, "app:refused");
    String other = images.add(10_000, "app:other");
    images.failRemoval(refused);
    ImageGcManager gc = manager(50, 40, Duration.ZERO);
    images.setDisk(100_000, 0);
    gc.start();
    schedulers.runDue();

    assertThat(images.removed()).containsExactly(other);
    assertThat(gc.stats().failedDeletions()).isEqualTo(1);
  }

  @Test
  void aFileSystemOfSizeZeroIsAnInvalidDiskCapacityEvent() {
    images.setDisk(0, 0);
    manager(85, 80, Duration.ZERO).start();
    schedulers.runDue();
    assertThat(events)
        .containsExactly("Warning InvalidDiskCapacity: invalid capacity 0 on image filesystem");
  }

  @Test
  void deleteUnusedImagesFreesEveryUnusedImageOldEnoughWhateverTheUsage() throws Exception {
    images.setDisk(100_000, 100_000);
    String a = images.add(3_000, "app:a");
    String used = images.add(3_000, "app:used");
    images.use(used);
    images.add(1_000, PAUSE);
    ImageGcManager gc = manager(85, 80, Duration.ofMinutes(2));
    gc.start();
    schedulers.runDue();
    String young = images.add(3_000, "app:young");

    assertThat(gc.deleteUnusedImages()).isEqualTo(3_000);
    assertThat(images.removed()).containsExactly(a);
    assertThat(images.imageId("app:young")).contains(young);
  }

  @Test
  void thePolicyIsCheckedAsUpstreamChecksIt() {
    assertThatThrownBy(() -> new ImageGcPolicy(101, 80, Duration.ZERO))
        .hasMessage("invalid HighThresholdPercent 101, must be in range [0-100]");
    assertThatThrownBy(() -> new ImageGcPolicy(85, -1, Duration.ZERO))
        .hasMessage("invalid LowThresholdPercent -1, must be in range [0-100]");
    assertThatThrownBy(() -> new ImageGcPolicy(70, 80, Duration.ZERO))
        .hasMessage("LowThresholdPercent 80 can not be higher than HighThresholdPercent 70");
    assertThat(new ImageGcPolicy(100, 80, Duration.ZERO).enabled()).isFalse();
    assertThat(new ImageGcPolicy(85, 80, Duration.ZERO).enabled()).isTrue();
  }
}
