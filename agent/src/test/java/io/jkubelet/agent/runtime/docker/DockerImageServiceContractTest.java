package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.runtime.ImageService;
import io.jkubelet.agent.runtime.ImageServiceContract;
import io.jkubelet.agent.util.Time;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ImageServiceContract} on the real engine. Every image and container it makes carries this
 * test's label, {@code jkubelet-test-images=<run>}; only those are removed afterwards, so images
 * other tests need are never touched.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DockerImageServiceContractTest extends ImageServiceContract {
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String label = "jkubelet-test-images=" + run;
  private final DockerRuntime runtime =
      DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system());
  private final DockerClient docker = TestDockerClient.connect();

  @AfterEach
  void removeThisTestsContainersAndImages() throws Exception {
    try {
      TestDockerClient.removeLabelled(docker, "jkubelet-test-images", run);
      TestImages.removeLabelled(label);
    } finally {
      runtime.close();
      docker.close();
    }
  }

  @Override
  protected ImageService service() {
    return runtime.imageService();
  }

  @Override
  protected String addImage(String... tags) throws Exception {
    return TestImages.importTiny(label, 4096, tags);
  }

  @Override
  protected void addStoppedForeignUser(String imageId) {
    docker
        .createContainerCmd(imageId)
        .withCmd("/data")
        .withLabels(java.util.Map.of("jkubelet-test-images", run))
        .exec();
  }

  @Override
  protected String uniqueTag(String name) {
    return "jkubelet-test-images/" + name + ":" + run;
  }
}
