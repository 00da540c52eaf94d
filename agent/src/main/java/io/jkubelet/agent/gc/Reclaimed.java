package io.jkubelet.agent.gc;

import io.fabric8.kubernetes.api.model.Pod;
import io.jkubelet.agent.kuberuntime.RuntimeManager;
import io.jkubelet.agent.runtime.Runtime;
import io.jkubelet.agent.volume.VolumeManager;
import io.jkubelet.agent.workers.PodWorkers;
import java.io.IOException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a pod being deleted in the API is finished here (upstream's {@code
 * PodResourcesAreReclaimed}): its worker is not running it, the runtime has nothing left of it, and
 * its volumes are torn down. The status manager then deletes the API object for good.
 *
 * <p>The volumes are torn down here, once the runtime has nothing left of the pod: as upstream's
 * volume manager unmounts a terminated pod's volumes and its {@code podVolumesExist} holds the
 * deletion until they are gone, a volume that will not unmount (a busy tmpfs) keeps the pod
 * Terminating, and {@link VolumeManager#teardownFailure} says why; each later check tries again.
 *
 * <p>Thread-safe: it reads the workers' state, asks the runtime, and tears down through the volume
 * manager, which is thread-safe.
 */
record Reclaimed(PodWorkers workers, Runtime runtime, VolumeManager volumes)
    implements Predicate<Pod> {
  private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

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
      if (!status.containers().isEmpty() || !status.sandboxes().isEmpty()) {
        return false;
      }
    } catch (RuntimeException e) {
      return false; // cannot tell: try again at the next sync
    }
    try {
      volumes.cleanUp(uid);
      return true;
    } catch (IOException e) {
      log.warn(
          "Housekeeping: the volumes of deleted pod {} do not tear down: {}", uid, e.getMessage());
      return false;
    }
  }
}
