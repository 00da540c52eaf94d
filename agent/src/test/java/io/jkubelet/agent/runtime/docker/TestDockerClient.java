package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import java.time.Duration;

/** A plain docker-java client of the local engine, for tests and benches to compare with. */
public final class TestDockerClient {
  private TestDockerClient() {}

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
