package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.workers.PodWorkers;
import java.util.function.Predicate;

/**
 * Whether a pod being deleted in the API is finished here (upstream's {@code
 * PodResourcesAreReclaimed}): its worker is not running it, and the runtime has nothing left of it.
 * The status manager then deletes the API object for good.
 *
 * <p>Thread-safe: it only reads the workers' state and asks the runtime.
 */
final class Reclaimed implements Predicate<Pod> {
  private final PodWorkers workers;
  private final Runtime runtime;

  Reclaimed(PodWorkers workers, Runtime runtime) {
    this.workers = workers;
    this.runtime = runtime;
  }

  @Override
  public boolean test(Pod apiPod) {
    if (apiPod.getMetadata().getDeletionTimestamp() == null) {
      return false;
    }
    String uid = apiPod.getMetadata().getUid();
    if (workers.state(uid) == PodWorkers.PodState.SYNCING || workers.isWorking(uid)) {
      return false;
    }
    try {
      var status = runtime.podStatus(RuntimeManager.ref(apiPod));
      return status.containers().isEmpty() && status.sandboxes().isEmpty();
    } catch (RuntimeException e) {
      return false; // cannot tell: try again at the next sync
    }
  }
}
