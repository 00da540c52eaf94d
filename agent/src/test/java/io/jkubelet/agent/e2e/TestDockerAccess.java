package io.jkubelet.agent.e2e;

import com.github.dockerjava.api.DockerClient;

/** Lets tests in other packages use {@link TestDocker}'s client. */
public final class TestDockerAccess {
  private TestDockerAccess() {}

  public static DockerClient client() {
    return TestDocker.client();
  }
}
