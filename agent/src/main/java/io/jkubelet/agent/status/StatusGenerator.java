package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.jkubelet.agent.cm.QosClass;
import io.jkubelet.agent.pod.PodPhases;
import io.jkubelet.agent.prober.ContainerHealth;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;

/**
 * Generates a pod's API status from its runtime status, as upstream's {@code generateAPIPodStatus}
 * in {@code kubelet_pods.go}: the container statuses ({@link ContainerStatuses}), the phase ({@link
 * PodPhase}), the conditions ({@link PodConditions}), IPs, start time and QoS class ({@link
 * QosClass}).
 *
 * <p>A pure function of its inputs; thread-safe.
 */
public final class StatusGenerator {
  private StatusGenerator() {}

  /**
   * @param previous the status generated last time (for transition times, start time, and the
   *     terminated states of containers that were garbage collected), or null
   * @param health what the probes say of each running container: its ready and started flags
   */
  public static PodStatus generate(
      Pod pod,
      io.jkubelet.agent.runtime.PodStatus runtime,
      ReasonCache reasons,
      PodStatus previous,
      Instant now,
      String hostIp,
      ContainerHealth health) {
    List<ContainerStatus> initStatuses =
        ContainerStatuses.of(pod, runtime, reasons, previous, true, health);
    List<ContainerStatus> appStatuses =
        ContainerStatuses.of(pod, runtime, reasons, previous, false, health);
    appStatuses.sort(Comparator.comparing(ContainerStatus::getName));

    String phase = PodPhase.of(pod, initStatuses, appStatuses);
    if (previous != null
        && PodPhases.isTerminal(previous.getPhase())
        && !phase.equals(previous.getPhase())) {
      phase = previous.getPhase(); // a terminal phase never goes back
    }
    boolean keptTerminal =
        previous != null
            && PodPhases.isTerminal(previous.getPhase())
            && phase.equals(previous.getPhase());

    PodStatus s = new PodStatus();
    s.setPhase(phase);
    s.setInitContainerStatuses(initStatuses);
    s.setContainerStatuses(appStatuses);
    s.setConditions(PodConditions.of(initStatuses, appStatuses, phase, previous, now));
    s.setHostIP(hostIp);
    setIps(s, pod, runtime, previous, hostIp);
    s.setStartTime(
        previous != null && previous.getStartTime() != null ? previous.getStartTime() : time(now));
    s.setQosClass(QosClass.of(pod).apiName());
    if (keptTerminal) {
      // Why it ended (Evicted, with its message) stays with the phase.
      s.setReason(previous.getReason());
      s.setMessage(previous.getMessage());
    }
    if (!PodPhases.SUCCEEDED.equals(phase)
        && ActiveDeadline.passed(pod, Instant.parse(s.getStartTime()), now)) {
      // Also once its killed containers have made the pod Failed: the reason stays.
      // As upstream's generateAPIPodStatus when a sync handler asks for an eviction.
      s.setPhase(PodPhases.FAILED);
      s.setReason(ActiveDeadline.REASON);
      s.setMessage(ActiveDeadline.MESSAGE);
    }
    return s;
  }

  /**
   * The sandbox's IP (the host's for a host-network pod); the previous one while the sandbox has
   * none and containers still run.
   */
  private static void setIps(
      PodStatus s,
      Pod pod,
      io.jkubelet.agent.runtime.PodStatus runtime,
      PodStatus previous,
      String hostIp) {
    List<String> ips = runtime.ips();
    if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork()) && !hostIp.isEmpty()) {
      ips = List.of(hostIp);
    }
    if (!ips.isEmpty()) {
      s.setPodIP(ips.get(0));
      s.setPodIPs(ips.stream().map(PodIP::new).toList());
    } else if (previous != null && previous.getPodIP() != null && runtime.anyRunning()) {
      s.setPodIP(previous.getPodIP());
      s.setPodIPs(previous.getPodIPs());
    }
  }

  /** RFC 3339 with second precision, as the API writes times. */
  public static String time(Instant t) {
    return t == null
        ? null
        : DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }
}
