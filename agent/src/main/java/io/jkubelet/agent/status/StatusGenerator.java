package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateTerminatedBuilder;
import io.fabric8.kubernetes.api.model.ContainerStateWaitingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.kuberuntime.Actions;
import io.jkubelet.agent.kuberuntime.WaitingReasons;
import io.jkubelet.agent.runtime.ContainerStatus;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Generates a pod's API status from its runtime status, as upstream's {@code generateAPIPodStatus}
 * and {@code convertToAPIContainerStatuses} in {@code kubelet_pods.go}, and {@code
 * status.Generate*Condition}: phase, the four conditions with transition times, container statuses
 * with state, lastState, restartCount, ready and started, IPs, start time and QoS class.
 *
 * <p>A pure function of its inputs; thread-safe.
 */
public final class StatusGenerator {
  private StatusGenerator() {}

  /** How the API names a runtime's container ID: {@code docker://<id>}. */
  private static final String CONTAINER_ID_SCHEME = "docker://";

  /** Whether a pod phase is final: Succeeded or Failed never change again. */
  public static boolean isTerminal(String phase) {
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** A runtime's container ID as the API status shows it: {@code docker://<id>}. */
  public static String apiContainerId(String runtimeId) {
    return CONTAINER_ID_SCHEME + runtimeId;
  }

  /** The runtime's own ID in an API container ID ({@code docker://abc} is {@code abc}), or null. */
  public static String runtimeContainerId(String apiId) {
    if (apiId == null || apiId.isEmpty()) {
      return null;
    }
    int i = apiId.indexOf("://");
    return i < 0 ? apiId : apiId.substring(i + 3);
  }

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
    List<Container> inits = Actions.inits(pod);
    List<Container> apps = pod.getSpec().getContainers();
    List<io.fabric8.kubernetes.api.model.ContainerStatus> initStatuses =
        containerStatuses(
            pod,
            runtime,
            reasons,
            previous == null ? null : previous.getInitContainerStatuses(),
            inits,
            true,
            health);
    List<io.fabric8.kubernetes.api.model.ContainerStatus> appStatuses =
        containerStatuses(
            pod,
            runtime,
            reasons,
            previous == null ? null : previous.getContainerStatuses(),
            apps,
            false,
            health);
    appStatuses.sort(
        Comparator.comparing(io.fabric8.kubernetes.api.model.ContainerStatus::getName));

    String phase = phase(pod, initStatuses, appStatuses);
    if (previous != null && isTerminal(previous.getPhase()) && !phase.equals(previous.getPhase())) {
      phase = previous.getPhase(); // a terminal phase never goes back
    }

    PodStatus s = new PodStatus();
    s.setPhase(phase);
    s.setInitContainerStatuses(initStatuses);
    s.setContainerStatuses(appStatuses);
    s.setConditions(conditions(pod, initStatuses, appStatuses, phase, previous, now));
    s.setHostIP(hostIp);
    String ip = runtime.ip();
    if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork()) && !hostIp.isEmpty()) {
      ip = hostIp;
    }
    if (!ip.isEmpty()) {
      s.setPodIP(ip);
      s.setPodIPs(List.of(new PodIP(ip)));
    } else if (previous != null && previous.getPodIP() != null && runtime.anyRunning()) {
      s.setPodIP(previous.getPodIP());
      s.setPodIPs(previous.getPodIPs());
    }
    s.setStartTime(
        previous != null && previous.getStartTime() != null ? previous.getStartTime() : time(now));
    s.setQosClass(qosClass(pod));
    return s;
  }

  private static List<io.fabric8.kubernetes.api.model.ContainerStatus> containerStatuses(
      Pod pod,
      io.jkubelet.agent.runtime.PodStatus runtime,
      ReasonCache reasons,
      List<io.fabric8.kubernetes.api.model.ContainerStatus> previous,
      List<Container> containers,
      boolean init,
      ContainerHealth health) {
    Map<String, io.fabric8.kubernetes.api.model.ContainerStatus> old = new HashMap<>();
    if (previous != null) {
      previous.forEach(p -> old.put(p.getName(), p));
    }
    String defaultWaiting =
        Actions.inits(pod).isEmpty()
            ? WaitingReasons.CONTAINER_CREATING
            : WaitingReasons.POD_INITIALIZING;
    Map<String, io.fabric8.kubernetes.api.model.ContainerStatus> statuses = new LinkedHashMap<>();
    for (Container c : containers) {
      io.fabric8.kubernetes.api.model.ContainerStatus st =
          new io.fabric8.kubernetes.api.model.ContainerStatus();
      st.setName(c.getName());
      st.setImage(c.getImage());
      st.setImageID("");
      st.setRestartCount(0);
      st.setReady(false);
      st.setStarted(false);
      st.setState(
          new ContainerStateBuilder()
              .withWaiting(new ContainerStateWaitingBuilder().withReason(defaultWaiting).build())
              .build());
      io.fabric8.kubernetes.api.model.ContainerStatus o = old.get(c.getName());
      if (o != null) {
        if (o.getState() != null && o.getState().getTerminated() != null) {
          st = copy(o); // a terminated container may have been collected since
        } else {
          st.setRestartCount(o.getRestartCount());
          st.setLastState(o.getLastState());
        }
      }
      statuses.put(c.getName(), st);
    }

    Map<String, Integer> seen = new HashMap<>();
    List<ContainerStatus> newestFirst = runtime.containers(); // newest first
    for (ContainerStatus cs : newestFirst) {
      io.fabric8.kubernetes.api.model.ContainerStatus st = statuses.get(cs.name());
      if (st == null) {
        continue;
      }
      int n = seen.getOrDefault(cs.name(), 0);
      if (n >= 2) {
        continue;
      }
      if (n == 0) {
        io.fabric8.kubernetes.api.model.ContainerStatus fresh = convert(cs);
        if (fresh.getState().getRunning() != null) {
          fresh.setReady(health.ready(cs.name(), cs.id()));
          fresh.setStarted(health.started(cs.name(), cs.id()));
        }
        // Keep the previous lastState until a second container shows one.
        fresh.setLastState(st.getLastState());
        statuses.put(cs.name(), fresh);
      } else {
        st.setLastState(convert(cs).getState());
      }
      seen.put(cs.name(), n + 1);
    }
    statuses
        .values()
        .forEach(
            st -> {
              if (st.getLastState() == null) {
                st.setLastState(new io.fabric8.kubernetes.api.model.ContainerState());
              }
            });

    // Containers that failed to start, or will be restarted, are waiting.
    for (Container c : containers) {
      if (init) {
        var s = runtime.latest(c.getName());
        if (s.isPresent() && s.get().exited() && s.get().exitCode() == 0) {
          continue;
        }
      }
      if (!Actions.shouldRestart(c, pod, runtime)) {
        continue;
      }
      var reason = reasons.get(pod.getMetadata().getUid(), c.getName());
      if (reason.isEmpty()) {
        continue;
      }
      io.fabric8.kubernetes.api.model.ContainerStatus st = statuses.get(c.getName());
      if (st.getState() != null && st.getState().getTerminated() != null) {
        st.setLastState(st.getState());
      }
      st.setState(
          new ContainerStateBuilder()
              .withWaiting(
                  new ContainerStateWaitingBuilder()
                      .withReason(reason.get().reason())
                      .withMessage(reason.get().message())
                      .build())
              .build());
      st.setReady(false);
      st.setStarted(false);
    }
    return new ArrayList<>(statuses.values());
  }

  private static io.fabric8.kubernetes.api.model.ContainerStatus convert(ContainerStatus cs) {
    io.fabric8.kubernetes.api.model.ContainerStatus st =
        new io.fabric8.kubernetes.api.model.ContainerStatus();
    st.setName(cs.name());
    st.setImage(cs.image());
    st.setImageID(cs.imageRef());
    st.setContainerID(apiContainerId(cs.id()));
    st.setRestartCount(cs.restartCount());
    st.setReady(false);
    st.setStarted(false);
    ContainerStateBuilder state = new ContainerStateBuilder();
    switch (cs.state()) {
      case RUNNING -> state.withNewRunning().withStartedAt(time(cs.startedAt())).endRunning();
      case CREATED, EXITED ->
          state.withTerminated(
              new ContainerStateTerminatedBuilder()
                  .withExitCode(cs.exitCode())
                  .withReason(emptyToNull(cs.reason()))
                  .withMessage(emptyToNull(cs.message()))
                  .withStartedAt(time(cs.startedAt()))
                  .withFinishedAt(time(cs.finishedAt()))
                  .withContainerID(apiContainerId(cs.id()))
                  .build());
      case UNKNOWN -> state.withWaiting(new ContainerStateWaitingBuilder().build());
    }
    st.setState(state.build());
    return st;
  }

  /** Upstream's {@code getPhase}. */
  static String phase(
      Pod pod,
      List<io.fabric8.kubernetes.api.model.ContainerStatus> inits,
      List<io.fabric8.kubernetes.api.model.ContainerStatus> apps) {
    String policy = pod.getSpec().getRestartPolicy();
    int pendingInit = 0;
    int failedInit = 0;
    for (var st : inits) {
      var state = st.getState();
      if (state == null || state.getRunning() != null) {
        pendingInit++;
      } else if (state.getTerminated() != null) {
        if (state.getTerminated().getExitCode() != 0) {
          failedInit++;
        }
      } else if (state.getWaiting() != null) {
        var last = st.getLastState() == null ? null : st.getLastState().getTerminated();
        if (last != null) {
          if (last.getExitCode() != 0) {
            failedInit++;
          }
        } else {
          pendingInit++;
        }
      } else {
        pendingInit++;
      }
    }
    int unknown = 0;
    int running = 0;
    int waiting = 0;
    int stopped = 0;
    int succeeded = 0;
    for (var st : apps) {
      var state = st.getState();
      if (state == null) {
        unknown++;
      } else if (state.getRunning() != null) {
        running++;
      } else if (state.getTerminated() != null) {
        stopped++;
        if (state.getTerminated().getExitCode() == 0) {
          succeeded++;
        }
      } else if (state.getWaiting() != null) {
        if (st.getLastState() != null && st.getLastState().getTerminated() != null) {
          stopped++;
        } else {
          waiting++;
        }
      } else {
        unknown++;
      }
    }
    if (failedInit > 0 && "Never".equals(policy)) {
      return "Failed";
    }
    if (pendingInit > 0 || waiting > 0) {
      return "Pending";
    }
    if (running > 0 && unknown == 0) {
      return "Running";
    }
    if (running == 0 && stopped > 0 && unknown == 0) {
      if ("Always".equals(policy)) {
        return "Running";
      }
      if (stopped == succeeded) {
        return "Succeeded";
      }
      if ("Never".equals(policy)) {
        return "Failed";
      }
      return "Running";
    }
    return "Pending";
  }

  private static List<PodCondition> conditions(
      Pod pod,
      List<io.fabric8.kubernetes.api.model.ContainerStatus> inits,
      List<io.fabric8.kubernetes.api.model.ContainerStatus> apps,
      String phase,
      PodStatus previous,
      Instant now) {
    List<PodCondition> out = new ArrayList<>();
    // Initialized
    List<String> incomplete = new ArrayList<>();
    for (var st : inits) {
      var t = st.getState() == null ? null : st.getState().getTerminated();
      if (t == null || t.getExitCode() != 0) {
        incomplete.add(st.getName());
      }
    }
    if (incomplete.isEmpty() || "Succeeded".equals(phase)) {
      out.add(condition("Initialized", "True", null, null));
    } else {
      out.add(
          condition(
              "Initialized",
              "False",
              "ContainersNotInitialized",
              "containers with incomplete status: " + list(incomplete)));
    }
    // Ready and ContainersReady
    List<String> unready = new ArrayList<>();
    for (var st : apps) {
      if (!Boolean.TRUE.equals(st.getReady())) {
        unready.add(st.getName());
      }
    }
    PodCondition containersReady;
    if ("Succeeded".equals(phase)) {
      containersReady = condition("ContainersReady", "False", "PodCompleted", null);
    } else if (!unready.isEmpty()) {
      containersReady =
          condition(
              "ContainersReady",
              "False",
              "ContainersNotReady",
              "containers with unready status: " + list(unready));
    } else {
      containersReady = condition("ContainersReady", "True", null, null);
    }
    PodCondition ready = new PodConditionBuilder(containersReady).withType("Ready").build();
    out.add(ready);
    out.add(containersReady);
    out.add(condition("PodScheduled", "True", null, null));

    Map<String, PodCondition> before = new HashMap<>();
    if (previous != null && previous.getConditions() != null) {
      previous.getConditions().forEach(c -> before.put(c.getType(), c));
    }
    for (PodCondition c : out) {
      PodCondition p = before.get(c.getType());
      c.setLastProbeTime(null);
      c.setLastTransitionTime(
          p != null
                  && Objects.equals(p.getStatus(), c.getStatus())
                  && p.getLastTransitionTime() != null
              ? p.getLastTransitionTime()
              : time(now));
    }
    return out;
  }

  private static PodCondition condition(String type, String status, String reason, String message) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  private static String list(List<String> names) {
    return "[" + String.join(" ", names) + "]";
  }

  /** Upstream's {@code GetPodQOS}. */
  static String qosClass(Pod pod) {
    Map<String, Quantity> requests = new HashMap<>();
    Map<String, Quantity> limits = new HashMap<>();
    boolean guaranteed = true;
    List<Container> all = new ArrayList<>(Actions.inits(pod));
    all.addAll(pod.getSpec().getContainers());
    for (Container c : all) {
      var r = c.getResources();
      Map<String, Quantity> req = r == null || r.getRequests() == null ? Map.of() : r.getRequests();
      Map<String, Quantity> lim = r == null || r.getLimits() == null ? Map.of() : r.getLimits();
      for (String res : List.of("cpu", "memory")) {
        Quantity q = req.get(res);
        if (q != null && q.getNumericalAmount().signum() > 0) {
          requests.put(res, q);
        }
        Quantity l = lim.get(res);
        if (l != null && l.getNumericalAmount().signum() > 0) {
          limits.put(res, l);
        }
      }
      if (!lim.containsKey("cpu") || !lim.containsKey("memory")) {
        guaranteed = false;
      }
      for (String res : List.of("cpu", "memory")) {
        Quantity q = req.get(res);
        Quantity l = lim.get(res);
        if (q != null
            && l != null
            && q.getNumericalAmount().compareTo(l.getNumericalAmount()) != 0) {
          guaranteed = false;
        }
      }
    }
    if (requests.isEmpty() && limits.isEmpty()) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  private static io.fabric8.kubernetes.api.model.ContainerStatus copy(
      io.fabric8.kubernetes.api.model.ContainerStatus s) {
    return new io.fabric8.kubernetes.api.model.ContainerStatusBuilder(s).build();
  }

  /** RFC 3339 with second precision, as the API writes times. */
  public static String time(Instant t) {
    return t == null
        ? null
        : DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
