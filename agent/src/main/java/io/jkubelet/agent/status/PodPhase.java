package io.jkubelet.agent.status;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.pod.PodPhases;
import java.util.List;

/**
 * A pod's phase from its container statuses, as upstream's {@code getPhase} in {@code
 * kubelet_pods.go}. Stateless; thread-safe.
 */
final class PodPhase {
  static final String PENDING = PodPhases.PENDING;
  static final String RUNNING = PodPhases.RUNNING;
  static final String SUCCEEDED = PodPhases.SUCCEEDED;
  static final String FAILED = PodPhases.FAILED;

  private PodPhase() {}

  /** How many init containers are still to finish, and how many failed. */
  private record InitCounts(int pending, int failed) {}

  /** How many app containers are in each state. */
  private record AppCounts(int unknown, int running, int waiting, int stopped, int succeeded) {}

  /** Upstream's {@code getPhase}. */
  static String of(Pod pod, List<ContainerStatus> inits, List<ContainerStatus> apps) {
    String policy = pod.getSpec().getRestartPolicy();
    InitCounts init = countInits(inits);
    AppCounts app = countApps(apps);
    if (init.failed() > 0 && "Never".equals(policy)) {
      return FAILED;
    }
    if (init.pending() > 0 || app.waiting() > 0) {
      return PENDING;
    }
    if (app.running() > 0 && app.unknown() == 0) {
      return RUNNING;
    }
    if (app.running() == 0 && app.stopped() > 0 && app.unknown() == 0) {
      if ("Always".equals(policy)) {
        return RUNNING;
      }
      if (app.stopped() == app.succeeded()) {
        return SUCCEEDED;
      }
      if ("Never".equals(policy)) {
        return FAILED;
      }
      return RUNNING;
    }
    return PENDING;
  }

  private static InitCounts countInits(List<ContainerStatus> inits) {
    int pending = 0;
    int failed = 0;
    for (var st : inits) {
      var state = st.getState();
      if (state == null || state.getRunning() != null) {
        pending++;
      } else if (state.getTerminated() != null) {
        if (state.getTerminated().getExitCode() != 0) {
          failed++;
        }
      } else if (state.getWaiting() != null) {
        var last = st.getLastState() == null ? null : st.getLastState().getTerminated();
        if (last == null) {
          pending++;
        } else if (last.getExitCode() != 0) {
          failed++;
        }
      } else {
        pending++;
      }
    }
    return new InitCounts(pending, failed);
  }

  private static AppCounts countApps(List<ContainerStatus> apps) {
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
    return new AppCounts(unknown, running, waiting, stopped, succeeded);
  }
}
