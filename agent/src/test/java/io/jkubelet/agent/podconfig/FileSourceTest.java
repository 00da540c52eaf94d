package io.jkubelet.agent.podconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.agent.util.FakeSchedulers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class FileSourceTest {
  @TempDir Path dir;
  private final AtomicReference<List<Pod>> last = new AtomicReference<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final EventRecorder recorder =
      (o, t, reason, msg) -> events.add(reason + " " + o.getName() + ": " + msg);

  private final FakeClock clock = new FakeClock();
  private final FakeSchedulers schedulers = new FakeSchedulers(clock);

  private FileSource source(String node) {
    return new FileSource(
        dir, new SourceOptions(PERIOD, node, clock, schedulers, last::set), recorder);
  }

  private static final Duration PERIOD = Duration.ofSeconds(20);

  private static final String POD =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: %s
      spec:
        containers:
        - name: c
          image: jkubelet/busybox:1.35
          command: ["sleep", "%s"]
      """;

  private void write(String file, String content) throws IOException {
    Files.writeString(dir.resolve(file), content);
  }

  private List<String> names() {
    return last.get().stream().map(p -> p.getMetadata().getName()).toList();
  }

  @Test
  void readsYamlAndJsonAndIgnoresHiddenAndOtherFiles() throws IOException {
    write("a.yaml", POD.formatted("a", "1"));
    write("b.yml", POD.formatted("b", "1"));
    write(
        "c.json",
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},
         "spec":{"containers":[{"name":"c","image":"jkubelet/busybox:1.35"}]}}
        """);
    write(".hidden.yaml", POD.formatted("hidden", "1"));
    write("notes.txt", POD.formatted("txt", "1"));
    write("d.yaml.swp", POD.formatted("swp", "1"));

    source("node1").scan();

    assertThat(names()).containsExactlyInAnyOrder("a-node1", "b-node1", "c-node1");
  }

  @Test
  void defaultsStaticPodsAsUpstream() throws IOException {
    write("a.yaml", POD.formatted("a", "1"));
    source("Node1").scan();
    Pod p = last.get().get(0);

    assertThat(p.getMetadata().getName()).isEqualTo("a-node1");
    assertThat(p.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(p.getMetadata().getUid()).matches("[0-9a-f]{32}");
    assertThat(p.getSpec().getNodeName()).isEqualTo("Node1");
    assertThat(p.getMetadata().getAnnotations())
        .containsEntry(Annotations.CONFIG_HASH, p.getMetadata().getUid())
        .containsEntry(Annotations.CONFIG_SOURCE, "file");
    assertThat(p.getSpec().getRestartPolicy()).isEqualTo("Always");
    assertThat(p.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);
    assertThat(p.getSpec().getContainers().get(0).getImagePullPolicy()).isEqualTo("IfNotPresent");
  }

  @Test
  void theUidIsAHashOfNodeSourceAndContent() throws IOException {
    write("a.yaml", POD.formatted("a", "1"));
    source("node1").scan();
    String uid = last.get().get(0).getMetadata().getUid();

    source("node1").scan();
    assertThat(last.get().get(0).getMetadata().getUid()).as("stable across runs").isEqualTo(uid);

    source("node2").scan();
    assertThat(last.get().get(0).getMetadata().getUid())
        .as("depends on the node")
        .isNotEqualTo(uid);

    write("a.yaml", POD.formatted("a", "2"));
    source("node1").scan();
    assertThat(last.get().get(0).getMetadata().getUid()).as("depends on content").isNotEqualTo(uid);

    Files.move(dir.resolve("a.yaml"), dir.resolve("moved.yaml"));
    write("moved.yaml", POD.formatted("a", "1"));
    source("node1").scan();
    assertThat(last.get().get(0).getMetadata().getUid())
        .as("depends on the file")
        .isNotEqualTo(uid);
  }

  @Test
  void anExplicitUidIsKept() throws IOException {
    write("a.yaml", POD.formatted("a", "1").replace("name: a\n", "name: a\n  uid: my-uid\n"));
    source("node1").scan();
    assertThat(last.get().get(0).getMetadata().getUid()).isEqualTo("my-uid");
  }

  @Test
  void aFileThatTurnsMalformedKeepsItsLastValidPod() throws IOException {
    FileSource s = source("node1");
    write("a.yaml", POD.formatted("a", "1"));
    s.scan();
    String uid = last.get().get(0).getMetadata().getUid();

    write("a.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n");
    s.scan();
    assertThat(last.get()).extracting(p -> p.getMetadata().getUid()).containsExactly(uid);

    write("a.yaml", POD.formatted("a", "1").replace("image: jkubelet/busybox:1.35", "image: ''"));
    s.scan();
    assertThat(last.get()).extracting(p -> p.getMetadata().getUid()).containsExactly(uid);
    assertThat(events)
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith("FailedValidation a-node1")
                    .contains("image: Required value"));

    write("a.yaml", POD.formatted("a", "5"));
    s.scan();
    assertThat(last.get()).extracting(p -> p.getMetadata().getUid()).doesNotContain(uid).hasSize(1);
  }

  @Test
  void badFilesNeverStopTheOthers() throws IOException {
    write("good.yaml", POD.formatted("good", "1"));
    write("broken.yaml", "{{{{ not yaml");
    write("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
    write(
        "nocontainers.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: e}\nspec: {containers: []}\n");
    write("BadName.yaml", POD.formatted("Bad_Name", "1"));
    source("node1").scan();
    assertThat(names()).containsExactly("good-node1");
  }

  @Test
  void aPodWithABadLabelIsRefusedAsUpstreamRefusesIt() throws IOException {
    // The example crashloop.json had "purpose: shows CrashLoopBackOff": upstream's file source
    // refused it (its validation of the labels), jkubelet ran it.
    write("good.yaml", POD.formatted("good", "1"));
    write(
        "spaced.yaml",
        POD.formatted("spaced", "1")
            .replace(
                "  name: spaced", "  name: spaced\n  labels: {purpose: shows CrashLoopBackOff}"));
    write(
        "badkey.yaml",
        POD.formatted("badkey", "1")
            .replace("  name: badkey", "  name: badkey\n  labels: {-x: y}"));
    source("node1").scan();
    assertThat(names()).containsExactly("good-node1");
    assertThat(events)
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith("FailedValidation spaced-node1")
                    .contains(
                        "metadata.labels: Invalid value: \"shows CrashLoopBackOff\": must be empty"
                            + " or consist of alphanumeric characters"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith("FailedValidation badkey-node1")
                    .contains("metadata.labels: Invalid value: \"-x\": name part must consist"));
  }

  @Test
  void aDeletedFileRemovesItsPodAndAMissingDirectoryIsAnEmptySet() throws IOException {
    FileSource s = source("node1");
    write("a.yaml", POD.formatted("a", "1"));
    s.scan();
    assertThat(names()).containsExactly("a-node1");
    Files.delete(dir.resolve("a.yaml"));
    s.scan();
    assertThat(last.get()).isEmpty();

    List<List<Pod>> sent = new ArrayList<>();
    new FileSource(
            dir.resolve("nope"),
            new SourceOptions(PERIOD, "n", clock, schedulers, sent::add),
            recorder)
        .scan();
    assertThat(sent).containsExactly(List.of());
  }

  @Test
  void theFakeClockStepsTheRescans() throws IOException {
    FileSource s = source("node1");
    s.start();
    try {
      assertThat(schedulers.created()).containsExactly("file-source");
      schedulers.runDue();
      assertThat(last.get()).as("the first scan runs at start").isEmpty();
      assertThat(s.healthy().ok()).isTrue();
      write("a.yaml", POD.formatted("a", "1"));
      // Whatever the watch asks for, the rescan one period later sees the file.
      schedulers.advance(PERIOD);
      assertThat(names()).containsExactly("a-node1");
    } finally {
      s.stop();
    }
    assertThat(schedulers.pending()).as("stop closes the scheduler").isZero();
  }

  @Test
  void theWatchPicksUpAChangeWellBeforeTheRescan() throws IOException {
    FileSource s = source("node1");
    Instant started = clock.instant();
    s.start();
    try {
      schedulers.runDue();
      assertThat(last.get()).isEmpty();
      write("a.yaml", POD.formatted("a", "1"));
      // Each poll steps the fake clock past the debounce; the rescan is 20 s of it away, so only
      // the watch can see the file before then.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                schedulers.advance(Duration.ofMillis(100));
                return last.get().size() == 1;
              });
      assertThat(clock.instant()).isBefore(started.plus(PERIOD));
    } finally {
      s.stop();
    }
  }

  @Test
  void aDirectoryRemovedAndMadeAgainIsWatchedAgainFromTheNextRescan() throws IOException {
    FileSource s = source("node1");
    s.start();
    try {
      write("a.yaml", POD.formatted("a", "1"));
      schedulers.runDue();
      assertThat(names()).containsExactly("a-node1");
      Files.delete(dir.resolve("a.yaml"));
      Files.delete(dir);
      schedulers.advance(FileSource.WATCH_POLL.plusMillis(200));
      assertThat(last.get()).as("the watch saw the directory go").isEmpty();

      Files.createDirectory(dir);
      write("b.yaml", POD.formatted("b", "1"));
      schedulers.advance(PERIOD);
      assertThat(names()).as("the rescan finds the directory again").containsExactly("b-node1");
      write("c.yaml", POD.formatted("c", "1"));
      schedulers.advance(FileSource.WATCH_POLL.plusMillis(200));
      assertThat(names()).as("and watches it again").containsExactly("b-node1", "c-node1");
    } finally {
      s.stop();
    }
  }
}
