package io.jkubelet.agent.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.TopContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

  /**
   * How many execs run in the container, as {@code docker top} (ps) shows them: its processes that
   * no other process there started, but its main process. Not Docker's exec flag, which is false
   * for an exec whose output could not be written, while its process runs on.
   */
  public static int execProcesses(DockerClient docker, String containerId) {
    long main = docker.inspectContainerCmd(containerId).exec().getState().getPidLong();
    TopContainerResponse top = docker.topContainerCmd(containerId).exec();
    List<String> titles = List.of(top.getTitles());
    int pidColumn = titles.indexOf("PID");
    int ppidColumn = titles.indexOf("PPID");
    Set<String> pids = new HashSet<>();
    for (String[] p : top.getProcesses()) {
      pids.add(p[pidColumn]);
    }
    int roots = 0;
    for (String[] p : top.getProcesses()) {
      if (!pids.contains(p[ppidColumn]) && !p[pidColumn].equals(Long.toString(main))) {
        roots++;
      }
    }
    return roots;
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
