package io.jkubelet.agent.gc;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.runtime.docker.TestDockerClient;
import io.jkubelet.agent.runtime.docker.TestImages;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Image GC on the real engine, with the real usage of Docker's data root: the high threshold is set
 * 10 points below the usage measured at the start (so collection must run) and the low one at 0 (so
 * its target cannot be reached and {@code FreeDiskSpaceFailed} must be recorded).
 *
 * <p>NOTE: this engine holds images other tests need (built by {@code deploy/scripts/test.sh} and
 * {@code e2e-images.sh}), and other tests may build or pull images while this one runs. Real GC
 * deletes every unused image old enough, and has no image filter (upstream has none), so the test
 * keeps every image it did not make out of reach:
 *
 * <ol>
 *   <li>The manager's first run records the images present as detected at the epoch (old enough at
 *       once, as upstream's first detection). During that run the disk is shown as empty (a
 *       decorator over the real {@link ImageService} answers capacity = free space until it is
 *       armed), so the run only detects.
 *   <li>Then every image present that is not this test's gets a container of its own, created and
 *       not started ({@code docker create}, labelled with this run): a container in any state makes
 *       its image in use. The listing comes after the detection, so it covers every image the
 *       detection could have called old.
 *   <li>An image that appears after the detection is first detected at the second run, and the
 *       minimum age is an hour (on a fake clock that moves 5 minutes): it is too young to go.
 *   <li>The decorator is armed: the second run reads the real usage, which is over the high
 *       threshold, and deletes. The decorator records every deletion, and the test asserts it
 *       deleted only this test's unused image.
 * </ol>
 *
 * The engine itself is the last guard: it refuses to remove an image a container uses, and {@link
 * ImageService#removeImage} asks for the image's containers again before it untags anything. The
 * protecting containers and this test's images are removed afterwards, by their label only.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ImageGcDockerIT {
  private static final String KEY = "jkubelet-test-imagegc";
  private static final String BUSYBOX = "jkubelet/busybox:1.35";

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String label = KEY + "=" + run;
  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system());
  private final DockerClient docker = TestDockerClient.connect();
  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final EventRecorder recorder =
      (ref, type, reason, message) ->
          events.add(
              ref.getKind() + "/" + ref.getName() + " " + type + " " + reason + ": " + message);

  /** The real images, with the disk shown empty until armed, and every deletion recorded. */
  private static final class Armed implements ImageService {
    final ImageService real;
    final List<String> removed = Collections.synchronizedList(new ArrayList<>());
    volatile boolean armed;

    Armed(ImageService real) {
      this.real = real;
    }

    @Override
    public List<Image> images() {
      return real.images();
    }

    @Override
    public Set<String> imagesInUse() {
      return real.imagesInUse();
    }

    @Override
    public Optional<String> imageId(String reference) {
      return real.imageId(reference);
    }

    @Override
    public void removeImage(String id) {
      removed.add(id);
      real.removeImage(id);
    }

    @Override
    public FsUsage imageFsUsage() {
      FsUsage u = real.imageFsUsage();
      return armed ? u : new FsUsage(u.capacityBytes(), u.capacityBytes());
    }
  }

  @AfterEach
  void removeThisTestsContainersAndImages() throws Exception {
    try {
      TestDockerClient.removeLabelled(docker, KEY, run);
      TestImages.removeLabelled(label);
    } finally {
      runtime.close();
      docker.close();
    }
  }

  private String tag(String name) {
    return KEY + "/" + name + ":" + run;
  }

  @Test
  void overTheThresholdAnUnusedImageGoesButNoImageAnyContainerUsesNorTheSandboxImage()
      throws Exception {
    String unused = TestImages.importTiny(label, 256 * 1024, tag("unused"));
    String sandbox = TestImages.importTiny(label, 4096, tag("pause"));
    String stoppedUser = TestImages.importTiny(label, 4096, tag("stopped"));
    docker.createContainerCmd(stoppedUser).withCmd("/data").withLabels(Map.of(KEY, run)).exec();
    // In use by a running container that jkubelet did not make: as `docker run -d`.
    String runningUser = TestImages.derived(BUSYBOX, label, tag("running"));
    String running =
        docker
            .createContainerCmd(runningUser)
            .withCmd("sleep", "600")
            .withLabels(Map.of(KEY, run))
            .exec()
            .getId();
    docker.startContainerCmd(running).exec();

    Armed images = new Armed(runtime.imageService());
    ImageService.FsUsage usage = images.real.imageFsUsage();
    int percent = (int) (100 - usage.availableBytes() * 100 / usage.capacityBytes());
    assertThat(percent).as("the data root's usage, for the high threshold").isGreaterThan(11);
    ImageGcManager gc =
        new RealImageGcManager(
            new ImageGcManager.Options(
                new ImageGcPolicy(percent - 10, 0, Duration.ofHours(1)),
                tag("pause"),
                Refs.node("imagegc-" + run),
                ImageGcManager.PERIOD),
            images,
            recorder,
            clock,
            schedulers);
    gc.start();
    try {
      schedulers.runDue(); // the first detection: the disk shown empty, nothing deleted
      assertThat(images.removed).isEmpty();
      protectEveryImageButThisTests();
      images.armed = true;

      schedulers.advance(ImageGcManager.PERIOD);
    } finally {
      gc.stop();
    }

    assertThat(images.removed).containsExactly(unused);
    assertThat(images.real.imageId(tag("unused"))).isEmpty();
    assertThat(images.real.imageId(tag("pause"))).contains(sandbox);
    assertThat(images.real.imageId(tag("stopped"))).contains(stoppedUser);
    assertThat(images.real.imageId(tag("running"))).contains(runningUser);
    assertThat(gc.stats().deletedImages()).isEqualTo(1);
    assertThat(gc.stats().freedBytes()).isGreaterThanOrEqualTo(256 * 1024);
    assertThat(events)
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .matches(
            "Node/imagegc-"
                + run
                + " Warning FreeDiskSpaceFailed: failed to garbage collect required amount of"
                + " images\\. Wanted to free \\d+ bytes, but freed \\d+ bytes");
  }

  /** A created, never started, labelled container for every image that is not this test's. */
  private void protectEveryImageButThisTests() {
    Set<String> mine =
        Set.copyOf(
            docker.listImagesCmd().withLabelFilter(Map.of(KEY, run)).exec().stream()
                .map(com.github.dockerjava.api.model.Image::getId)
                .toList());
    for (var image : docker.listImagesCmd().exec()) {
      if (!mine.contains(image.getId())) {
        docker
            .createContainerCmd(image.getId())
            .withCmd("/jkubelet-test-never-started")
            .withLabels(Map.of(KEY, run))
            .exec();
      }
    }
  }
}
