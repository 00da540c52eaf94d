package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Why a pod is stuck Terminating, end to end on the real engine and a real control plane, with
 * {@code --termination-stuck-after=10s} (3 s was too little on a loaded machine: after the grace
 * period's SIGKILL, the sandbox's stop, the network's teardown and the API's deletion once took
 * longer, and the normal case got the event). The engine is reached through an {@link EngineProxy},
 * which hangs one container's calls when a test asks. On a healthy engine neither a container that
 * ignores SIGTERM nor a sleeping preStop hook outlasts the grace period (the engine's SIGKILL ends
 * the first, the grace period bounds the second), so those pods are gone first and never get the
 * event; they are held only by a stop or a hook's exec that the engine does not answer, which is
 * what the event then names. A busy tmpfs emptyDir (a host process has its working directory there)
 * does not unmount, which holds the pod until it is released.
 */
@Timeout(300)
class TerminationStuckE2EIT {
  private static final String BUSYBOX = "jkubelet/busybox:1.35";
  private static final EngineProxy PROXY = proxy();

  @RegisterExtension
  static final ClusterNode NODE =
      new ClusterNode(
          "stuck",
          List.of(
              "--termination-stuck-after=10s", "--container-runtime-endpoint=" + PROXY.endpoint()));

  private static EngineProxy proxy() {
    try {
      return EngineProxy.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  static void closeProxy() throws IOException {
    PROXY.close();
  }

  /** A pod of one container {@code app} that ignores SIGTERM, with a preStop hook if given. */
  private static String pod(String name, int grace, String preStop, String volumes, String mounts) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: %d
        %s  containers:
          - name: app
            image: %s
            imagePullPolicy: Never
            command: ["sh", "-c", "trap '' TERM; while true; do sleep 1; done"]
        %s%s
        """
        .formatted(
            name,
            NODE.node,
            grace,
            volumes,
            BUSYBOX,
            preStop.isEmpty()
                ? ""
                : "    lifecycle:\n      preStop:\n        exec: {command: " + preStop + "}\n",
            mounts);
  }

  private static String running(String name) throws Exception {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                Kubectl.run("-n", NODE.ns, "get", "pod", name, "-o", "jsonpath={.status.phase}")
                    .ok()
                    .out()
                    .equals("Running"));
    String id =
        Kubectl.run(
                "-n",
                NODE.ns,
                "get",
                "pod",
                name,
                "-o",
                "jsonpath={.status.containerStatuses[0].containerID}")
            .ok()
            .out();
    return id.substring(id.indexOf("://") + 3);
  }

  private static String uid(String name) throws Exception {
    return Kubectl.run("-n", NODE.ns, "get", "pod", name, "-o", "jsonpath={.metadata.uid}")
        .ok()
        .out();
  }

  private static List<String> stuckEvents(String name) throws Exception {
    return Kubectl.events(NODE.ns, name).stream()
        .filter(e -> e.path("reason").asText().equals("TerminationStuck"))
        .map(
            e ->
                e.path("type").asText()
                    + " "
                    + e.path("count").asInt()
                    + " "
                    + e.path("message").asText())
        .toList();
  }

  private static void delete(String name) throws Exception {
    Kubectl.run("-n", NODE.ns, "delete", "pod", name, "--wait=false").ok();
  }

  private static void awaitGone(String name) {
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                Kubectl.run("-n", NODE.ns, "get", "pod", name, "--ignore-not-found", "-o", "name")
                    .ok()
                    .out()
                    .isBlank());
  }

  @Test
  void aPodWhoseGraceRunsNormallyNeverGetsTheEvent() throws Exception {
    // Ignores SIGTERM, and its preStop hook would sleep past the grace period: both end with it.
    Kubectl.apply(NODE.ns, pod("normal", 4, "[\"sleep\", \"600\"]", "", ""));
    running("normal");
    delete("normal");
    awaitGone("normal");

    assertThat(stuckEvents("normal")).isEmpty();
  }

  @Test
  void aStopTheEngineDoesNotAnswerNamesTheCallAndTheContainerThatHasNotExited() throws Exception {
    Kubectl.apply(NODE.ns, pod("hung-stop", 2, "", "", ""));
    String id = running("hung-stop");
    try (EngineProxy.Hang hang = PROXY.hang(id)) {
      delete("hung-stop");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> stuckEvents("hung-stop"), e -> !e.isEmpty());
      // The stop goes on for at least CALL_MIN_AGE before it is named: the repeat names it.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> stuckEvents("hung-stop"),
              e ->
                  e.stream()
                      .anyMatch(
                          m ->
                              m.startsWith("Warning ")
                                  && m.contains("container \"app\" has not exited (PID ")
                                  && m.contains(
                                      "runtime call StopContainer for container \"app\" not"
                                          + " returned after")));
      assertThat(stuckEvents("hung-stop")).as("one event, patched").hasSize(1);
      hang.release();
    }
    awaitGone("hung-stop");
  }

  @Test
  void aPreStopHookWhoseExecTheEngineDoesNotAnswerIsNamed() throws Exception {
    Kubectl.apply(NODE.ns, pod("hung-hook", 2, "[\"sleep\", \"600\"]", "", ""));
    String id = running("hung-hook");
    try (EngineProxy.Hang hang = PROXY.hang(id)) {
      delete("hung-hook");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> stuckEvents("hung-hook"),
              e ->
                  e.stream()
                      .anyMatch(m -> m.contains("preStop hook of container \"app\" running for")));
      hang.release();
    }
    awaitGone("hung-hook");
  }

  @Test
  void aBusyTmpfsVolumeHoldsThePodAndIsNamedWithItsError() throws Exception {
    Kubectl.apply(
        NODE.ns,
        pod(
            "busy-volume",
            2,
            "",
            "  volumes:\n  - name: scratch\n    emptyDir: {medium: Memory}\n",
            "    volumeMounts:\n    - {name: scratch, mountPath: /scratch}\n"));
    running("busy-volume");
    Path dir =
        NODE.tmp()
            .resolve("root/pods")
            .resolve(uid("busy-volume"))
            .resolve("volumes/kubernetes.io~empty-dir/scratch");
    assertThat(Files.isDirectory(dir)).isTrue();
    // A process of the host's with its working directory in the tmpfs: umount says it is busy.
    Process holder = new ProcessBuilder("sleep", "600").directory(dir.toFile()).start();
    try {
      delete("busy-volume");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> stuckEvents("busy-volume"),
              e ->
                  e.stream()
                      .anyMatch(
                          m ->
                              m.contains("volume \"scratch\" not torn down for")
                                  && m.contains("busy")));
      JsonNode pods = podsOfNode();
      assertThat(pods.toString()).contains("jkubelet.io/termination-stuck");
    } finally {
      holder.destroyForcibly().waitFor();
    }
    awaitGone("busy-volume");
  }

  /** The node's {@code /pods}, through the API server's proxy to the kubelet API. */
  private static JsonNode podsOfNode() throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(
            Kubectl.run("get", "--raw", "/api/v1/nodes/" + NODE.node + "/proxy/pods").ok().out());
  }
}
