package io.jkubelet.agent.runtime;

import io.jkubelet.agent.runtime.fake.FakeImageService;

/** {@link ImageServiceContract} on {@link FakeImageService}. */
class FakeImageServiceContractTest extends ImageServiceContract {
  private final FakeImageService fake = new FakeImageService();

  @Override
  protected ImageService service() {
    return fake;
  }

  @Override
  protected String addImage(String... tags) {
    return fake.add(1000, tags);
  }

  @Override
  protected void addStoppedForeignUser(String imageId) {
    fake.use(imageId);
  }

  @Override
  protected String uniqueTag(String name) {
    return "fake/" + name + ":1";
  }
}
