package io.jkubelet.agent.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The environment, the security context and termination messages, end to end: jkubelet in cluster
 * mode against the real API server and Docker. What the container sees is read from inside it
 * ({@code env}, {@code id}, {@code /proc/1/status}) through the engine's exec, and what the user
 * sees through {@code kubectl}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class EnvSecurityE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SLEEPER =
      "image: jkubelet/busybox:1.35\n    command: [sh, -c, \"trap 'exit 0' TERM; sleep 3600 & wait\"]";

  @RegisterExtension
  static final ClusterNode cluster =
      new ClusterNode("es", List.of("--allowed-unsafe-sysctls", "kernel.msg*"));

  private final String node = cluster.node;
  private final String ns = cluster.ns;
  private final DockerClient docker = TestDocker.client();

  @AfterAll
  void close() throws Exception {
    docker.close();
  }

  @Test
  void configMapsSecretsEnvFromFieldsResourcesAndServicesReachTheEnvironment() throws Exception {
    Kubectl.run(
            "-n",
            ns,
            "create",
            "configmap",
            "cm",
            "--from-literal=A=from-cm",
            "--from-literal=1bad=x",
            "--from-literal=GOOD=yes")
        .ok();
    Kubectl.run("-n", ns, "create", "secret", "generic", "s", "--from-literal=PW=hunter2").ok();
    Kubectl.run("-n", ns, "create", "service", "clusterip", "my-svc", "--tcp=8080:80").ok();
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "env",
            node,
            """
              - name: app
                %s
                resources: {requests: {cpu: 100m, memory: 32Mi}}
                envFrom:
                - {prefix: P_, configMapRef: {name: cm}}
                - {configMapRef: {name: cm}}
                env:
                - {name: CM_A, valueFrom: {configMapKeyRef: {name: cm, key: A}}}
                - {name: PW, valueFrom: {secretKeyRef: {name: s, key: PW}}}
                - {name: MAYBE, valueFrom: {secretKeyRef: {name: nope, key: x, optional: true}}}
                - {name: POD_IPS, valueFrom: {fieldRef: {fieldPath: status.podIPs}}}
                - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
                - {name: SA, valueFrom: {fieldRef: {fieldPath: spec.serviceAccountName}}}
                - {name: CPU_M, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}
                - {name: MEM_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.memory}}}
                - {name: COMPOSED, value: "$(CM_A)/$(P_GOOD)/$(MISSING)"}
            """
                .formatted(SLEEPER)));
    String id = awaitRunning("env", "app");

    Map<String, String> env = envOf(id);
    assertThat(env)
        .containsEntry("CM_A", "from-cm")
        .containsEntry("PW", "hunter2")
        .containsEntry("P_A", "from-cm")
        .containsEntry("P_GOOD", "yes")
        .containsEntry("P_1bad", "x")
        .containsEntry("GOOD", "yes")
        .containsEntry("NODE", node)
        .containsEntry("SA", "default")
        .containsEntry("CPU_M", "100")
        .containsEntry("COMPOSED", "from-cm/yes/$(MISSING)")
        .containsKeys("KUBERNETES_SERVICE_HOST", "MY_SVC_SERVICE_HOST", "MY_SVC_PORT_8080_TCP_ADDR")
        .doesNotContainKeys("MAYBE", "1bad");
    assertThat(env.get("POD_IPS")).isEqualTo(get("env").path("status").path("podIP").asText());
    assertThat(Long.parseLong(env.get("MEM_LIMIT"))).isGreaterThan(32L << 20); // the node's
    assertThat(env.get("MY_SVC_SERVICE_PORT")).isEqualTo("8080");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "env"))
                    .containsPattern(
                        "Warning\\s+InvalidEnvironmentVariableNames\\s+.*Keys \\[1bad\\] from"
                            + " the EnvFrom configMap "
                            + ns
                            + "/cm were skipped"));
  }

  @Test
  void aMissingKeyOrSecretIsACreateContainerConfigErrorUntilItAppears() throws Exception {
    Kubectl.run("-n", ns, "create", "configmap", "partial", "--from-literal=A=a").ok();
    Kubectl.apply(
        ns,
        Kubectl.boundPod(
            "missing",
            node,
            """
              - name: key
                %s
                env: [{name: X, valueFrom: {configMapKeyRef: {name: partial, key: nope}}}]
              - name: secret
                %s
                env: [{name: X, valueFrom: {secretKeyRef: {name: later, key: k}}}]
            """
                .formatted(SLEEPER, SLEEPER)));

    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode pod = get("missing");
              assertThat(waiting(pod, "key").path("reason").asText())
                  .isEqualTo("CreateContainerConfigError");
              assertThat(waiting(pod, "key").path("message").asText())
                  .isEqualTo("couldn't find key nope in ConfigMap " + ns + "/partial");
              assertThat(waiting(pod, "secret").path("message").asText())
                  .isEqualTo("secret \"later\" not found");
            });
    // The event is written on its own, after the status or before it: kubectl describe shows it
    // once it is in.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(Kubectl.describe(ns, "missing"))
                    .containsPattern("Warning\\s+Failed\\s+.*Error: secret \"later\" not found"));

    Kubectl.run("-n", ns, "create", "secret", "generic", "later", "--from-literal=k=v").ok();
    awaitRunning("missing", "secret");
  }

  @Test
  void userGroupsCapabilitiesAndAReadOnlyRootAsTheProcessSeesThem() throws Exception {
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: sec}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          securityContext:
            runAsUser: 1000
            runAsGroup: 3000
            fsGroup: 2000
            supplementalGroups: [4000]
            sysctls:
            - {name: net.ipv4.ip_local_port_range, value: "20000 30000"}
            - {name: kernel.msgmax, value: "65536"}
          containers:
          - name: app
            %s
            securityContext:
              readOnlyRootFilesystem: true
              allowPrivilegeEscalation: false
              capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}
        """
            .formatted(node, SLEEPER));
    String id = awaitRunning("sec", "app");

    String id1 = exec(id, "id");
    assertThat(id1).startsWith("uid=1000 gid=3000 groups=");
    assertThat(id1.substring(id1.indexOf("groups=") + 7).split(","))
        .containsExactlyInAnyOrder("2000", "3000", "4000");
    String status = exec(id, "cat /proc/1/status");
    assertThat(status).contains("NoNewPrivs:\t1").contains("Seccomp:\t0");
    assertThat(status).containsPattern("CapBnd:\\s+0000000000000400"); // NET_BIND_SERVICE
    assertThat(exec(id, "touch /x; echo $?")).contains("Read-only file system");
    assertThat(exec(id, "cat /proc/sys/net/ipv4/ip_local_port_range")).matches("20000\\s+30000");
    assertThat(exec(id, "cat /proc/sys/kernel/msgmax")).isEqualTo("65536");
  }

  @Test
  void cpuSharesFromRequestsAndQuotaFromLimitsInTheContainersCgroup() throws Exception {
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: cpu}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          containers:
          - name: burstable
            %s
            resources:
              requests: {cpu: 250m, memory: 32Mi}
              limits: {cpu: 500m, memory: 64Mi}
          - name: besteffort
            %s
        """
            .formatted(node, SLEEPER, SLEEPER));
    String burstable = awaitRunning("cpu", "burstable");
    String bestEffort = awaitRunning("cpu", "besteffort");
    // What the process reads in its own cgroup: cgroup v1's cpu controller, or v2's unified files
    // (where Docker maps shares to a weight of 1 + (shares - 2) * 9999 / 262142).
    String script =
        "if [ -f /sys/fs/cgroup/cpu.max ]; then echo v2 $(cat /sys/fs/cgroup/cpu.weight)"
            + " $(cat /sys/fs/cgroup/cpu.max) $(cat /sys/fs/cgroup/memory.max);"
            + " else cd /sys/fs/cgroup; echo v1 $(cat cpu/cpu.shares) $(cat cpu/cpu.cfs_quota_us)"
            + " $(cat cpu/cpu.cfs_period_us) $(cat memory/memory.limit_in_bytes); fi";
    String seen = exec(burstable, script);
    String idle = exec(bestEffort, script);
    if (seen.startsWith("v2")) {
      assertThat(seen)
          .isEqualTo("v2 " + (1 + (256 - 2) * 9999 / 262142) + " 50000 100000 67108864");
      assertThat(idle).startsWith("v2 1 max 100000");
    } else {
      assertThat(seen).isEqualTo("v1 256 50000 100000 67108864");
      assertThat(idle).startsWith("v1 2 -1 100000");
    }
  }

  @Test
  void runAsNonRootOnARootImageIsRefusedAndAForbiddenSysctlRejectsThePod() throws Exception {
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: nonroot}
        spec:
          nodeName: %s
          securityContext: {runAsNonRoot: true}
          containers:
          - name: app
            %s
        """
            .formatted(node, SLEEPER));
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: sysctl}
        spec:
          nodeName: %s
          securityContext: {sysctls: [{name: kernel.sem, value: "250 32000 32 128"}]}
          containers:
          - name: app
            %s
        """
            .formatted(node, SLEEPER));

    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode nonroot = get("nonroot");
              assertThat(waiting(nonroot, "app").path("reason").asText())
                  .isEqualTo("CreateContainerConfigError");
              assertThat(waiting(nonroot, "app").path("message").asText())
                  .isEqualTo(
                      "container has runAsNonRoot and image will run as root (pod: \"nonroot_"
                          + ns
                          + "("
                          + nonroot.path("metadata").path("uid").asText()
                          + ")\", container: app)");
              JsonNode sysctl = get("sysctl").path("status");
              assertThat(sysctl.path("phase").asText()).isEqualTo("Failed");
              assertThat(sysctl.path("reason").asText()).isEqualTo("SysctlForbidden");
              assertThat(sysctl.path("message").asText())
                  .isEqualTo("Pod forbidden sysctl: \"kernel.sem\" not whitelisted");
            });
  }

  @Test
  void aSharedProcessNamespaceShowsEachOthersProcesses() throws Exception {
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: shared}
        spec:
          nodeName: %s
          terminationGracePeriodSeconds: 2
          shareProcessNamespace: true
          containers:
          - name: a
            %s
          - name: b
            image: jkubelet/busybox:1.35
            command: [sh, -c, "trap 'exit 0' TERM; sleep 3601 & wait"]
        """
            .formatted(node, SLEEPER));
    String a = awaitRunning("shared", "a");
    awaitRunning("shared", "b");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(exec(a, "ps")).contains("sleep 3601"));
  }

  @Test
  void terminationMessagesFromTheFileOrOnErrorFromTheLog() throws Exception {
    Kubectl.apply(
        ns,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: term}
        spec:
          nodeName: %s
          restartPolicy: Never
          securityContext: {runAsUser: 1000}
          containers:
          - name: file
            image: jkubelet/busybox:1.35
            command: [sh, -c, "echo -n done-well > /dev/termination-log"]
          - name: custom
            image: jkubelet/busybox:1.35
            terminationMessagePath: /tmp/why
            command: [sh, -c, "echo -n custom-path > /tmp/why; exit 2"]
          - name: logs
            image: jkubelet/busybox:1.35
            terminationMessagePolicy: FallbackToLogsOnError
            command: [sh, -c, "echo first; echo it broke; exit 1"]
        """
            .formatted(node));

    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              JsonNode pod = get("term");
              assertThat(terminated(pod, "file").path("message").asText()).isEqualTo("done-well");
              assertThat(terminated(pod, "custom").path("message").asText())
                  .isEqualTo("custom-path");
              assertThat(terminated(pod, "logs").path("message").asText())
                  .isEqualTo("first\nit broke\n");
            });
  }

  // ---------------------------------------------------------------------------------------------

  private JsonNode get(String pod) throws Exception {
    return JSON.readTree(Kubectl.run("-n", ns, "get", "pod", pod, "-o", "json").ok().out());
  }

  private static JsonNode status(JsonNode pod, String container) {
    for (JsonNode c : pod.path("status").path("containerStatuses")) {
      if (container.equals(c.path("name").asText())) {
        return c;
      }
    }
    throw new AssertionError("no status of " + container + " in " + pod.path("status"));
  }

  private static JsonNode waiting(JsonNode pod, String container) {
    return status(pod, container).path("state").path("waiting");
  }

  private static JsonNode terminated(JsonNode pod, String container) {
    JsonNode t = status(pod, container).path("state").path("terminated");
    assertThat(t.isMissingNode()).as(container + " terminated").isFalse();
    return t;
  }

  /** Waits until the container runs, and returns its Docker id. */
  private String awaitRunning(String pod, String container) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              JsonNode s = status(get(pod), container);
              return s.path("state").has("running")
                  ? s.path("containerID").asText().replace("docker://", "")
                  : null;
            },
            id -> id != null && !id.isEmpty());
  }

  private Map<String, String> envOf(String id) throws Exception {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    for (String line : exec(id, "env").split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  private String exec(String id, String script) throws Exception {
    return TestDocker.exec(docker, id, script);
  }
}
