package io.jkubelet.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * What image GC relies on of an {@link ImageService}, run against {@link
 * io.jkubelet.agent.runtime.fake.FakeImageService} and Docker: the fake's answers must be the
 * engine's.
 */
public abstract class ImageServiceContract {
  protected abstract ImageService service();

  /** Adds a new image of some size with these tags, none of which exists yet; returns its id. */
  protected abstract String addImage(String... tags) throws Exception;

  /** Makes a container that is not jkubelet's, and does not run, use the image. */
  protected abstract void addStoppedForeignUser(String imageId) throws Exception;

  /** A tag no other test uses. */
  protected abstract String uniqueTag(String name);

  @Test
  void anImageIsListedWithItsIdTagsAndSizeAndFoundByItsTag() throws Exception {
    String tag = uniqueTag("listed");
    String id = addImage(tag);

    assertThat(service().images())
        .filteredOn(i -> i.id().equals(id))
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.repoTags()).containsExactly(tag);
              assertThat(i.sizeBytes()).isPositive();
            });
    assertThat(service().imageId(tag)).contains(id);
    assertThat(service().imageId(id)).contains(id);
    assertThat(service().imageId(uniqueTag("absent"))).isEmpty();
  }

  @Test
  void aStoppedContainerThatIsNotJkubeletsCountsAsAUserAndTheImageCannotBeRemoved()
      throws Exception {
    String tag = uniqueTag("used");
    String id = addImage(tag);
    assertThat(service().imagesInUse()).doesNotContain(id);

    addStoppedForeignUser(id);

    assertThat(service().imagesInUse()).contains(id);
    assertThatThrownBy(() -> service().removeImage(id)).isInstanceOf(RuntimeError.class);
    assertThat(service().imageId(tag)).contains(id);
  }

  @Test
  void removingAnUnusedImageRemovesAllItsTagsAndRemovingItAgainIsNoError() throws Exception {
    String a = uniqueTag("gone-a");
    String b = uniqueTag("gone-b");
    String id = addImage(a, b);

    service().removeImage(id);

    assertThat(service().images()).noneMatch(i -> i.id().equals(id));
    assertThat(service().imageId(a)).isEmpty();
    assertThat(service().imageId(b)).isEmpty();
    service().removeImage(id);
  }

  @Test
  void theImageFileSystemHasACapacityAndAtMostThatMuchFree() {
    ImageService.FsUsage usage = service().imageFsUsage();
    assertThat(usage.capacityBytes()).isPositive();
    assertThat(usage.availableBytes()).isBetween(0L, usage.capacityBytes());
  }
}
