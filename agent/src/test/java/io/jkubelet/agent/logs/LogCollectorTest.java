package io.jkubelet.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.jkubelet.agent.runtime.ContainerConfig;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.LogEntry;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.SandboxConfig;
import io.jkubelet.agent.runtime.fake.FakeRuntime;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import io.jkubelet.agent.util.Sleeper;
import io.jkubelet.agent.util.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector against the fake runtime and a fake clock: files at upstream's paths with their
 * links, stdout and stderr and partial entries, resuming after a restart without duplicates or
 * gaps, a new instance in a new file, and the files going with their container and their pod.
 */
class LogCollectorTest {
  @TempDir Path dir;
  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);
  private final FakeRuntime runtime = new FakeRuntime(clock, "img", "pause");
  private final List<PodRef> pods = new ArrayList<>();
  private PodLogPaths paths;
  private LogCollector collector;

  @BeforeEach
  void setUp() {
    paths = new PodLogPaths(dir.resolve("pods"), dir.resolve("containers"));
    collector = collector(1 << 20);
  }

  @AfterEach
  void tearDown() {
    collector.stop();
  }

  private LogCollector collector(long maxSize) {
    return LogCollector.create(
        new LogCollector.Options(
            paths,
            maxSize,
            3,
            runtime,
            () -> pods.stream().map(runtime::podStatus).toList(),
            new Time(clock, Sleeper.SYSTEM, schedulers),
            Duration.ofSeconds(1)));
  }

  private String run(PodRef pod, String name, int restartCount) {
    if (!pods.contains(pod)) {
      pods.add(pod);
    }
    String sandbox =
        runtime.runPodSandbox(
            SandboxConfig.builder(pod, "pause")
                .attempt(0)
                .hostname(pod.name())
                .hostNetwork(false)
                .ports(List.of())
                .oomScoreAdj(0)
                .labels(Labels.podLabels(pod, Labels.POD_CONTAINER_NAME, Labels.TYPE_SANDBOX))
                .cpuShares(2)
                .build());
    Map<String, String> labels = new HashMap<>(Labels.podLabels(pod, name, Labels.TYPE_CONTAINER));
    labels.put(Labels.RESTART_COUNT, Integer.toString(restartCount));
    String id =
        runtime.createContainer(
            sandbox,
            ContainerConfig.builder(Labels.containerName(pod, name, restartCount), "img")
                .entrypoint(List.of("sh"))
                .cmd(List.of())
                .env(List.of())
                .workingDir("")
                .mounts(List.of())
                .resources(ContainerConfig.Resources.NONE)
                .labels(labels)
                .stdio(ContainerConfig.Stdio.NONE)
                .build());
    runtime.startContainer(id);
    return id;
  }

  private void tick() {
    schedulers.advance(Duration.ofSeconds(1));
  }

  private void print(String id, String stream, String text) {
    clock.step(Duration.ofMillis(1));
    runtime.print(id, stream, text);
  }

  @Test
  void outputGoesToUpstreamsPathInCriFormatWithItsLink() throws IOException {
    PodRef pod = new PodRef("u1", "web", "ns");
    String id = run(pod, "app", 0);
    print(id, LogEntry.STDOUT, "before the collector\n");
    collector.start();
    tick();
    print(id, LogEntry.STDERR, "an error\n");
    print(id, LogEntry.STDOUT, "a long line's first part ");
    print(id, LogEntry.STDOUT, "and its end\n");

    Path file = dir.resolve("pods/ns_web_u1/app/0.log");
    assertThat(lines(file))
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly(
            "stdout F before the collector",
            "stderr F an error",
            "stdout P a long line's first part ",
            "stdout F and its end");
    assertThat(lines(file)).allMatch(l -> l.matches("\\d{4}-\\d\\d-\\d\\dT[\\d:]{8}\\.\\d{9}Z .*"));
    Path link = dir.resolve("containers/web_ns_app-" + id + ".log");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.readSymbolicLink(link)).isEqualTo(file);
  }

  @Test
  void aRestartedCollectorResumesWithoutDuplicatesOrGaps() throws IOException {
    PodRef pod = new PodRef("u1", "web", "ns");
    String id = run(pod, "app", 0);
    collector.start();
    tick();
    print(id, LogEntry.STDOUT, "one\n");
    runtime.print(id, LogEntry.STDOUT, "two, at the same time as one\n");
    collector.stop();
    runtime.print(id, LogEntry.STDOUT, "three, still at that time, while no agent ran\n");
    print(id, LogEntry.STDOUT, "four\n");

    collector = collector(1 << 20);
    collector.start();
    tick();
    print(id, LogEntry.STDOUT, "five\n");

    assertThat(lines(dir.resolve("pods/ns_web_u1/app/0.log")))
        .extracting(l -> l.substring(l.indexOf(" F ") + 3))
        .containsExactly(
            "one",
            "two, at the same time as one",
            "three, still at that time, while no agent ran",
            "four",
            "five");
  }

  @Test
  void aNewInstanceGetsItsOwnFileAndAnExitedOneIsNotFollowedAgain() throws IOException {
    PodRef pod = new PodRef("u1", "web", "ns");
    String first = run(pod, "app", 0);
    collector.start();
    tick();
    print(first, LogEntry.STDOUT, "first\n");
    runtime.exit(first, 1, "Error");
    tick();
    tick();
    String second = run(pod, "app", 1);
    tick();
    print(second, LogEntry.STDOUT, "second\n");

    assertThat(lines(dir.resolve("pods/ns_web_u1/app/0.log"))).hasSize(1);
    assertThat(lines(dir.resolve("pods/ns_web_u1/app/1.log")))
        .singleElement()
        .asString()
        .endsWith("F second");
    assertThat(runtime.calls().stream().filter(c -> c.equals("followLogEntries " + first)))
        .as("an exited container whose output is all written is not read again")
        .hasSize(1);
  }

  @Test
  void filesGoWithTheirContainerAndDirectoriesWithTheirPod() throws IOException {
    PodRef pod = new PodRef("u1", "web", "ns");
    String first = run(pod, "app", 0);
    collector.start();
    tick();
    print(first, LogEntry.STDOUT, "first\n");
    runtime.exit(first, 1, "Error");
    run(pod, "app", 1);
    tick();
    runtime.removeContainer(first);
    tick();
    assertThat(dir.resolve("pods/ns_web_u1/app/0.log")).doesNotExist();
    assertThat(dir.resolve("containers/web_ns_app-" + first + ".log")).doesNotExist();
    assertThat(dir.resolve("pods/ns_web_u1/app/1.log")).exists();

    collector.removePodLogs(uid -> uid.equals("u1"));
    assertThat(dir.resolve("pods/ns_web_u1")).exists();
    collector.removePodLogs(uid -> false);
    assertThat(dir.resolve("pods/ns_web_u1")).doesNotExist();
    try (Stream<Path> links = Files.list(dir.resolve("containers"))) {
      assertThat(links).isEmpty();
    }
  }

  @Test
  void aFullFileRotatesWhileTheContainerRuns() throws IOException {
    collector = collector(300);
    PodRef pod = new PodRef("u1", "web", "ns");
    String id = run(pod, "app", 0);
    collector.start();
    tick();
    for (int i = 0; i < 40; i++) {
      print(id, LogEntry.STDOUT, "line " + i + "\n");
    }
    Path appDir = dir.resolve("pods/ns_web_u1/app");
    try (Stream<Path> files = Files.list(appDir)) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().skip(1).toList();
      assertThat(appDir.resolve("0.log")).exists();
      assertThat(names).hasSize(2);
      assertThat(names.get(0)).matches("0\\.log\\.\\d{8}-\\d{6}\\.gz");
      assertThat(names.get(1)).matches("0\\.log\\.\\d{8}-\\d{6}");
    }
    assertThat(String.join("\n", lines(appDir.resolve("0.log")))).doesNotContain("line 0\n");
  }

  @Test
  void aContainerGoneBeforeItsOutputIsFollowedIsNotTriedAgain() {
    String id = run(new PodRef("ns", "p", "uid-1"), "c", 0);
    runtime.exit(id, 0, "Completed");
    runtime.failNext("followLogEntries", new RuntimeError(RuntimeError.Kind.NOT_FOUND, "gone"));
    collector.start();

    tick();
    tick();
    tick();

    assertThat(runtime.calls()).filteredOn(c -> c.startsWith("followLogEntries")).hasSize(1);
  }

  @Test
  void anUnwritableRootLeavesTheCollectorIdle() throws IOException {
    Files.writeString(dir.resolve("file"), "");
    paths = new PodLogPaths(dir.resolve("file/pods"), dir.resolve("containers"));
    collector = collector(1 << 20);
    run(new PodRef("u1", "web", "ns"), "app", 0);
    collector.start();
    tick();
    assertThat(collector.writing()).isFalse();
    assertThat(runtime.calls()).noneMatch(c -> c.startsWith("followLogEntries"));
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.readAllLines(file);
  }
}
