package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import io.jkubelet.agent.runtime.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Volumes in cluster mode, end to end: pods with the service-account token, secret, configMap,
 * downward API, projected and memory emptyDir volumes run on jkubelet against the real API server
 * (as their node) and Docker, and the tests look inside the containers with {@code docker exec}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class VolumesE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String node = "vol-" + UUID.randomUUID().toString().substring(0, 8);
  private final String ns = "jkv-" + UUID.randomUUID().toString().substring(0, 8);
  private final DockerClient docker = TestDocker.client();
  private Path tmp;
  private JkubeletProcess jkubelet;

  @RegisterExtension
  final PrintLogOnFailure printLogOnFailure = new PrintLogOnFailure(() -> jkubelet);

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("jkubelet-volumes");
    Kubectl.createNamespace(ns);
    jkubelet =
        new JkubeletProcess(
                node,
                Files.createDirectories(tmp.resolve("manifests")),
                tmp.resolve("root"),
                tmp.resolve("jkubelet.log"),
                List.of(
                    "--kubeconfig",
                    Kubectl.nodeKubeconfig(node).toString(),
                    "--node-ip",
                    "127.0.0.1"))
            .start();
  }

  @AfterAll
  void stop() throws Exception {
    if (jkubelet != null) {
      jkubelet.stop();
    }
    Kubectl.run("delete", "namespace", ns, "--wait=false");
    Kubectl.run("delete", "node", node, "--wait=false");
    TestDocker.removeAll(docker, Labels.NODE, node);
    TestMounts.unmountUnder(tmp);
  }

  private void apply(String yaml) throws Exception {
    Kubectl.apply(ns, yaml);
  }

  private String uid(String pod) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", pod, "-o", "json").ok().out())
        .path("metadata")
        .path("uid")
        .asText();
  }

  private String status(String pod) throws Exception {
    return Kubectl.run("-n", ns, "get", "pod", pod, "--no-headers")
        .ok()
        .out()
        .trim()
        .split("\\s+")[2];
  }

  private void awaitRunning(String pod) {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> "Running".equals(status(pod)));
  }

  /** Runs {@code sh -c script} in the pod's container {@code c}; returns its output, trimmed. */
  private String exec(String pod, String script) throws Exception {
    String id =
        TestDocker.withLabels(docker, Map.of(Labels.POD_UID, uid(pod), Labels.CONTAINER_NAME, "c"))
            .get(0)
            .getId();
    return TestDocker.exec(docker, id, script);
  }

  private List<String> eventMessages(String pod, String reason) throws Exception {
    return Kubectl.events(ns, pod).stream()
        .filter(e -> reason.equals(e.path("reason").asText()))
        .map(e -> e.path("message").asText())
        .toList();
  }

  private static String hostMounts() throws Exception {
    return Files.readString(Path.of("/proc/self/mounts"));
  }

  @Test
  void thePodRunsWithItsTokenSecretConfigMapDownwardAndProjectedVolumes() throws Exception {
    Kubectl.run("-n", ns, "create", "secret", "generic", "creds", "--from-literal=password=s3cret")
        .ok();
    Kubectl.run(
            "-n",
            ns,
            "create",
            "configmap",
            "settings",
            "--from-literal=a=one",
            "--from-literal=b=2")
        .ok();
    apply(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: full, labels: {app: web}}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          securityContext: {fsGroup: 1234}
          containers:
          - name: c
            image: jkubelet/busybox:1.35
            command: [sleep, '3600']
            volumeMounts:
            - {name: creds, mountPath: /etc/creds}
            - {name: settings, mountPath: /etc/settings}
            - {name: info, mountPath: /etc/info}
            - {name: api, mountPath: /var/run/api}
            - {name: cache, mountPath: /cache}
            - {name: settings, mountPath: /etc/b.conf, subPath: b}
          volumes:
          - {name: creds, secret: {secretName: creds, defaultMode: 0400}}
          - name: settings
            configMap:
              name: settings
              items: [{key: a, path: sub/a.txt, mode: 0600}, {key: b, path: b}]
          - name: info
            downwardAPI:
              items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]
          - name: api
            projected:
              sources:
              - serviceAccountToken: {path: token, audience: vault, expirationSeconds: 3600}
              - configMap: {name: kube-root-ca.crt, optional: true}
              - downwardAPI: {items: [{path: namespace, fieldRef: {fieldPath: metadata.namespace}}]}
          - {name: cache, emptyDir: {medium: Memory, sizeLimit: 16Mi}}
        """
            .formatted(node));
    awaitRunning("full");

    // The service-account token that admission added, as a secret volume.
    String sa = "/var/run/secrets/kubernetes.io/serviceaccount";
    assertThat(exec("full", "cat " + sa + "/namespace")).isEqualTo(ns);
    assertThat(exec("full", "cat " + sa + "/token")).matches("[\\w-]+\\.[\\w-]+\\.[\\w-]+");
    assertThat(exec("full", "head -1 " + sa + "/ca.crt")).contains("BEGIN CERTIFICATE");

    // The secret: its file, the default mode with fsGroup's group read, the atomic writer's links.
    assertThat(exec("full", "cat /etc/creds/password")).isEqualTo("s3cret");
    assertThat(exec("full", "stat -L -c '%a %g' /etc/creds/password")).isEqualTo("440 1234");
    assertThat(exec("full", "readlink /etc/creds/password")).isEqualTo("..data/password");
    assertThat(exec("full", "readlink /etc/creds/..data"))
        .matches("\\.\\.\\d{4}_\\d\\d_\\d\\d_\\d\\d_\\d\\d_\\d\\d\\.\\d+");

    // The configMap: items with their paths and modes; a subPath mount of one key.
    assertThat(exec("full", "cat /etc/settings/sub/a.txt")).isEqualTo("one");
    assertThat(exec("full", "stat -L -c '%a' /etc/settings/sub/a.txt")).isEqualTo("640");
    assertThat(exec("full", "cat /etc/b.conf")).isEqualTo("2");

    // Secret and configMap volumes are read-only whatever the mount says, as upstream.
    assertThat(exec("full", "touch /etc/settings/x 2>&1; touch /etc/creds/x 2>&1"))
        .contains("Read-only file system");
    assertThat(exec("full", "touch /cache/x && echo ok")).isEqualTo("ok");

    // Downward API and the projected token bound to the pod.
    assertThat(exec("full", "cat /etc/info/labels")).isEqualTo("app=\"web\"");
    assertThat(exec("full", "cat /var/run/api/namespace")).isEqualTo(ns);
    assertThat(exec("full", "cat /var/run/api/token")).matches("[\\w-]+\\.[\\w-]+\\.[\\w-]+");

    // Secrets, downward API and projected volumes and the memory emptyDir are tmpfs; the
    // configMap is on disk.
    String mounts = exec("full", "cat /proc/mounts");
    for (String dir : List.of("/etc/creds", "/etc/info", "/var/run/api", "/cache", sa)) {
      assertThat(mounts).as(dir).containsPattern("(?m)^tmpfs " + dir + " tmpfs ");
    }
    assertThat(mounts).doesNotContainPattern("(?m)^tmpfs /etc/settings ");
    assertThat(mounts).containsPattern("(?m)^tmpfs /cache tmpfs .*size=16384k");
    String volumes = tmp.resolve("root/pods/" + uid("full") + "/volumes").toString();
    assertThat(hostMounts()).contains(volumes + "/kubernetes.io~secret/creds tmpfs");
    assertThat(hostMounts()).doesNotContain(volumes + "/kubernetes.io~configmap");
  }

  @Test
  void aConfigMapUpdateAndALabelChangeReachTheFilesWithinSeconds() throws Exception {
    Kubectl.run(
            "-n",
            ns,
            "create",
            "configmap",
            "updated",
            "--from-literal=a=one",
            "--from-literal=b=2")
        .ok();
    apply(
        Kubectl.boundPod(
            "updates",
            node,
            "  - {name: settings, configMap: {name: updated}}\n"
                + "  - {name: info, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath:"
                + " metadata.labels}}]}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: settings, mountPath: /etc/settings},"
                + " {name: info, mountPath: /etc/info},"
                + " {name: settings, mountPath: /etc/b.conf, subPath: b}]}"));
    awaitRunning("updates");
    assertThat(exec("updates", "cat /etc/settings/a")).isEqualTo("one");
    assertThat(exec("updates", "cat /etc/info/labels")).as("no label yet").isEmpty();

    Kubectl.run("-n", ns, "patch", "configmap", "updated", "-p", "{\"data\":{\"a\":\"changed\"}}")
        .ok();
    Kubectl.run("-n", ns, "label", "pod", "updates", "tier=front").ok();
    // The sync period is 1m: only the watch gets the change there this soon.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(exec("updates", "cat /etc/settings/a")).isEqualTo("changed"));
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(exec("updates", "cat /etc/info/labels")).isEqualTo("tier=\"front\""));
    // A subPath mount is not updated, as upstream.
    Kubectl.run("-n", ns, "patch", "configmap", "updated", "-p", "{\"data\":{\"b\":\"3\"}}").ok();
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(exec("updates", "cat /etc/settings/b")).isEqualTo("3"));
    assertThat(exec("updates", "cat /etc/b.conf")).isEqualTo("2");
  }

  @Test
  void aSecretDeletedWhileInUseKeepsItsFilesWithAWarning() throws Exception {
    Kubectl.run("-n", ns, "create", "secret", "generic", "kept", "--from-literal=password=s3cret")
        .ok();
    apply(
        Kubectl.boundPod(
            "keeps",
            node,
            "  - {name: creds, secret: {secretName: kept}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: creds, mountPath: /etc/creds}]}"));
    awaitRunning("keeps");
    assertThat(exec("keeps", "cat /etc/creds/password")).isEqualTo("s3cret");

    Kubectl.run("-n", ns, "delete", "secret", "kept").ok();
    await()
        .atMost(Duration.ofSeconds(15))
        .ignoreExceptions()
        .until(
            () ->
                eventMessages("keeps", "FailedMount")
                    .contains(
                        "MountVolume.SetUp failed for volume \"creds\" : secret \"kept\" not found"));
    assertThat(exec("keeps", "cat /etc/creds/password")).isEqualTo("s3cret");
    assertThat(status("keeps")).isEqualTo("Running");
  }

  @Test
  void aMissingSecretIsAFailedMountUntilItIsCreated() throws Exception {
    apply(
        Kubectl.boundPod(
            "waiting",
            node,
            "  - {name: s, secret: {secretName: later}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: s, mountPath: /s}]}"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                eventMessages("waiting", "FailedMount")
                    .contains(
                        "MountVolume.SetUp failed for volume \"s\" : secret \"later\" not found"));
    assertThat(status("waiting")).isEqualTo("ContainerCreating");

    Kubectl.run("-n", ns, "create", "secret", "generic", "later", "--from-literal=k=v").ok();
    awaitRunning("waiting");
    assertThat(exec("waiting", "cat /s/k")).isEqualTo("v");
  }

  @Test
  void anUnsupportedVolumeIsAFailedMountNamingItsType() throws Exception {
    apply(
        Kubectl.boundPod(
            "claims",
            node,
            "  - {name: data, persistentVolumeClaim: {claimName: nope}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: data, mountPath: /data}]}"));
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                eventMessages("claims", "FailedMount")
                    .contains(
                        "MountVolume.SetUp failed for volume \"data\" : volume type"
                            + " \"persistentVolumeClaim\" is not supported by jkubelet"));
    assertThat(status("claims")).isEqualTo("ContainerCreating");
  }

  @Test
  void aDeletedPodsTmpfsMountsAndDirectoryGo() throws Exception {
    Kubectl.run("-n", ns, "create", "secret", "generic", "gone", "--from-literal=k=v").ok();
    apply(
        Kubectl.boundPod(
            "deleted",
            node,
            "  - {name: s, secret: {secretName: gone}}\n"
                + "  - {name: cache, emptyDir: {medium: Memory}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: s, mountPath: /s}, {name: cache, mountPath: /cache}]}"));
    awaitRunning("deleted");
    String podDir = tmp.resolve("root/pods/" + uid("deleted")).toString();
    assertThat(hostMounts())
        .contains(podDir + "/volumes/kubernetes.io~secret/s tmpfs")
        .contains(podDir + "/volumes/kubernetes.io~empty-dir/cache tmpfs");
    Kubectl.run("-n", ns, "delete", "pod", "deleted", "--timeout=60s").ok();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(hostMounts()).doesNotContain(podDir);
              assertThat(Path.of(podDir)).doesNotExist();
            });
  }

  @Test
  void aHostToContainerMountSeesWhatTheHostMountsInTheVolumeLater() throws Exception {
    apply(
        Kubectl.boundPod(
            "propagation",
            node,
            "  - {name: shared, emptyDir: {}}",
            "  - {name: c, image: jkubelet/busybox:1.35, command: [sleep, '3600'],"
                + " volumeMounts: [{name: shared, mountPath: /data,"
                + " mountPropagation: HostToContainer}]}"));
    awaitRunning("propagation");
    Path volume =
        tmp.resolve("root/pods/" + uid("propagation") + "/volumes/kubernetes.io~empty-dir/shared");
    Path sub = Files.createDirectories(volume.resolve("sub"));
    Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "tmpfs", sub.toString()).start();
    assertThat(mount.waitFor()).isZero();
    try {
      Files.writeString(sub.resolve("f"), "from the host");
      assertThat(exec("propagation", "cat /data/sub/f")).isEqualTo("from the host");
      assertThat(exec("propagation", "grep -c ' /data/sub ' /proc/mounts")).isEqualTo("1");
    } finally {
      new ProcessBuilder("umount", sub.toString()).start().waitFor();
    }
  }
}
