package io.jkubelet.agent.bench;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.docker.DockerRuntime;
import io.jkubelet.agent.runtime.docker.TestDockerClient;
import io.jkubelet.agent.util.Time;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * CPU and allocation of one container listing at 110 pods (220 containers: a sandbox and a
 * container each, all {@code jkubelet/pause:3.2}, labelled {@code jkubelet.test=list} and with the
 * pod labels), two ways: {@link DockerRuntime#listContainers} (the streamed listing the PLEG and
 * housekeeping use) and docker-java's {@code listContainersCmd} with the same filters (how it was
 * listed before; its mapping to summaries, a few getters per container, is left out). Each way runs
 * WARMUP listings, then N measured ones on this thread; prints µs of this thread's CPU and bytes it
 * allocated per listing. The engine's own work is not counted. The containers are removed at the
 * end (and any left by an earlier run at the start). Run by deploy/scripts/bench-list.sh.
 *
 * <p>Arguments: [N] [PODS] (defaults 500 110).
 */
public final class ListContainersBench {
  private static final String PAUSE = "jkubelet/pause:3.2";
  private static final String BENCH_LABEL = "jkubelet.test";
  private static final String BENCH_VALUE = "list";
  private static final int WARMUP = 300;

  private ListContainersBench() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 110;
    try (DockerClient docker = TestDockerClient.connect();
        DockerRuntime runtime =
            DockerRuntime.connect(DockerRuntime.DEFAULT_HOST, Time.system())
                .scopedTo(Map.of(BENCH_LABEL, BENCH_VALUE))) {
      TestDockerClient.removeLabelled(docker, BENCH_LABEL, BENCH_VALUE);
      try {
        createPods(docker, pods);
        List<String> filter = List.of(Labels.POD_UID, BENCH_LABEL + "=" + BENCH_VALUE);
        IntSupplier streamed = () -> runtime.listContainers().size();
        IntSupplier dockerJava =
            () -> {
              List<Container> listed =
                  docker.listContainersCmd().withShowAll(true).withFilter("label", filter).exec();
              return listed.size();
            };
        System.out.printf("listing %d containers, %d times each way%n", 2 * pods, n);
        measure("docker-java listContainersCmd", dockerJava, n, 2 * pods);
        measure("streamed (DockerRuntime.listContainers)", streamed, n, 2 * pods);
        measure("docker-java listContainersCmd", dockerJava, n, 2 * pods);
        measure("streamed (DockerRuntime.listContainers)", streamed, n, 2 * pods);
      } finally {
        TestDockerClient.removeLabelled(docker, BENCH_LABEL, BENCH_VALUE);
      }
    }
  }

  private static void measure(String name, IntSupplier list, int n, int expected) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().threadId();
    for (int i = 0; i < WARMUP; i++) {
      check(list.getAsInt(), expected);
    }
    long cpu0 = threads.getCurrentThreadCpuTime();
    long bytes0 = threads.getThreadAllocatedBytes(tid);
    for (int i = 0; i < n; i++) {
      check(list.getAsInt(), expected);
    }
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    long bytes = threads.getThreadAllocatedBytes(tid) - bytes0;
    System.out.printf(
        "%-42s %8.0f µs CPU/listing %10.0f bytes allocated/listing%n",
        name, cpu / 1e3 / n, (double) bytes / n);
  }

  private static void check(int listed, int expected) {
    if (listed != expected) {
      throw new IllegalStateException("listed " + listed + " containers, expected " + expected);
    }
  }

  private static void createPods(DockerClient docker, int pods) {
    for (int p = 0; p < pods; p++) {
      PodRef pod = new PodRef("bench-list-uid-" + p, "pod-" + p, "bench");
      String sandbox =
          run(docker, Labels.podLabels(pod, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX));
      Map<String, String> app = Labels.podLabels(pod, "app", Labels.TYPE_CONTAINER);
      app.put(Labels.SANDBOX_ID, sandbox);
      app.put(Labels.CONTAINER_HASH, "5f3e2a1b");
      app.put(Labels.RESTART_COUNT, "0");
      run(docker, app);
    }
  }

  private static String run(DockerClient docker, Map<String, String> labels) {
    Map<String, String> all = new HashMap<>(labels);
    all.put(BENCH_LABEL, BENCH_VALUE);
    String id = docker.createContainerCmd(PAUSE).withLabels(all).exec().getId();
    docker.startContainerCmd(id).exec();
    return id;
  }
}
