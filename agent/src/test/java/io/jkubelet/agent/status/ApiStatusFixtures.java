package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.kuberuntime.ContainerHash;
import io.jkubelet.agent.prober.ContainerHealth;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerStatus;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.SandboxStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Pod statuses as the kubelet generates them ({@link StatusGenerator}), for status tests. */
final class ApiStatusFixtures {
  static final String HOST_IP = "192.168.50.7";

  private ApiStatusFixtures() {}

  /**
   * Every app container running in a ready sandbox with {@code ip}; {@code ready} says whether they
   * pass readiness; {@code restarts} is each container's restart count.
   */
  static PodStatus running(Pod pod, Instant now, String ip, boolean ready, int restarts) {
    String uid = pod.getMetadata().getUid();
    List<ContainerStatus> containers = new ArrayList<>();
    for (Container c : pod.getSpec().getContainers()) {
      containers.add(
          new ContainerStatus(
              dockerId(uid + "/" + c.getName() + "/" + restarts),
              c.getName(),
              dockerId(uid + "/sandbox"),
              ContainerState.RUNNING,
              new ContainerStatus.Times(now.minusSeconds(5), now.minusSeconds(4), null),
              new ContainerStatus.Exit(0, "", ""),
              new ContainerStatus.Origin(
                  c.getImage(),
                  "docker://sha256:" + dockerId(c.getImage()),
                  ContainerHash.of(c),
                  restarts,
                  Map.of()),
              0));
    }
    return generate(pod, now, ip, containers, ready);
  }

  /** Nothing started yet: the containers are waiting in ContainerCreating. */
  static PodStatus pending(Pod pod, Instant now) {
    return generate(pod, now, "", List.of(), false);
  }

  private static PodStatus generate(
      Pod pod, Instant now, String ip, List<ContainerStatus> containers, boolean ready) {
    List<SandboxStatus> sandboxes =
        ip.isEmpty()
            ? List.of()
            : List.of(
                SandboxStatus.of(
                    dockerId(pod.getMetadata().getUid() + "/sandbox"),
                    0,
                    true,
                    ip,
                    now.minusSeconds(6),
                    Map.of()));
    return StatusGenerator.generate(
        pod,
        new io.jkubelet.agent.runtime.PodStatus(
            new PodRef(
                pod.getMetadata().getUid(),
                pod.getMetadata().getName(),
                pod.getMetadata().getNamespace()),
            sandboxes,
            containers),
        ReasonCache.create(),
        null,
        now,
        HOST_IP,
        ContainerHealth.fixed(ready, true));
  }

  /** 64 hex digits, as Docker's container ids. */
  static String dockerId(String seed) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
