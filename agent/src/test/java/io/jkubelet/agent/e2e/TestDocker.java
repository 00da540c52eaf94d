package io.jkubelet.agent.e2e;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A docker-java client for tests to look at what jkubelet did, and to clean up after them. */
final class TestDocker {
  private TestDocker() {}

  static DockerClient client() {
    var config =
        DefaultDockerClientConfig.createDefaultConfigBuilder()
            .withDockerHost("unix:///var/run/docker.sock")
            .build();
    var http =
        new ApacheDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .responseTimeout(Duration.ofSeconds(60))
            .build();
    return DockerClientImpl.getInstance(config, http);
  }

  /** Every container, running or not, with all of these labels. */
  static List<Container> withLabels(DockerClient docker, Map<String, String> labels) {
    return docker.listContainersCmd().withShowAll(true).withLabelFilter(labels).exec();
  }

  /** Removes every container with the label; for the test's own containers only. */
  static void removeAll(DockerClient docker, String key, String value) {
    for (Container c : withLabels(docker, Map.of(key, value))) {
      try {
        docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
      } catch (RuntimeException e) {
        // already gone
      }
    }
  }

  /** Runs {@code sh -c script} in the container; its output, stdout and stderr, trimmed. */
  static String exec(DockerClient docker, String id, String script) throws InterruptedException {
    String exec =
        docker
            .execCreateCmd(id)
            .withCmd("sh", "-c", script + " 2>&1")
            .withAttachStdout(true)
            .withAttachStderr(true)
            .exec()
            .getId();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    docker
        .execStartCmd(exec)
        .exec(
            new ResultCallback.Adapter<Frame>() {
              @Override
              public void onNext(Frame frame) {
                out.writeBytes(frame.getPayload());
              }
            })
        .awaitCompletion(30, TimeUnit.SECONDS);
    return out.toString(StandardCharsets.UTF_8).strip();
  }
}
