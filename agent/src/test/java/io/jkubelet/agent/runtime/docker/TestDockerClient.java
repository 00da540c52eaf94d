package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import java.time.Duration;
import java.util.Map;

/** A plain docker-java client of the local engine, for tests and benches to compare with. */
public final class TestDockerClient {
  private TestDockerClient() {}

  /** Removes every container with the label, with its volumes; for a test's own containers. */
  public static void removeLabelled(DockerClient docker, String key, String value) {
    for (Container c :
        docker.listContainersCmd().withShowAll(true).withLabelFilter(Map.of(key, value)).exec()) {
      try {
        docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
      } catch (NotFoundException e) {
        // already gone
      }
    }
  }

  public static DockerClient connect() {
    DockerClientConfig config =
        DefaultDockerClientConfig.createDefaultConfigBuilder()
            .withDockerHost(DockerRuntime.DEFAULT_HOST)
            .build();
    return DockerClientImpl.getInstance(
        config,
        new ApacheDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .responseTimeout(Duration.ofSeconds(30))
            .build());
  }
}
