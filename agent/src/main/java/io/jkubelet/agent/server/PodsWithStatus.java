package io.jkubelet.agent.server;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What {@code /pods} serves: the desired pods, each a copy carrying the status jkubelet computed
 * for it, or phase Pending when it has none yet. jkubelet's own annotations go on the copy only,
 * never to the API server: a pod waiting on image pulls carries their progress as {@value
 * #IMAGE_PULLS} (a JSON list, one entry per pull); a pod stuck Terminating carries what holds it as
 * {@value #TERMINATION_STUCK} (a JSON object, {@code terminating.StuckTerminations.Report}); a pod
 * with runtime calls that have not returned carries them as {@value #RUNTIME_CALLS_HUNG} (a JSON
 * list, {@code hung.HungCall.Report}).
 */
public final class PodsWithStatus implements Supplier<List<Pod>> {
  /** The annotation of a pod in {@code /pods} that holds the progress of the pulls it waits on. */
  public static final String IMAGE_PULLS = "jkubelet.io/image-pulls";

  /**
   * The annotation of a pod in {@code /pods} that says what holds it while it is stuck deleting.
   */
  public static final String TERMINATION_STUCK = "jkubelet.io/termination-stuck";

  /** The annotation of a pod in {@code /pods} that lists its runtime calls that hang now. */
  public static final String RUNTIME_CALLS_HUNG = "jkubelet.io/runtime-calls-hung";

  private final Supplier<? extends Collection<Pod>> desired;
  private final Function<String, Optional<PodStatus>> statusByUid;
  private final Function<String, Map<String, String>> annotationsByUid;

  /**
   * @param annotationsByUid jkubelet's own annotations of a pod ({@link #IMAGE_PULLS}, {@link
   *     #TERMINATION_STUCK}, {@link #RUNTIME_CALLS_HUNG}), by its UID; empty for none
   */
  public PodsWithStatus(
      Supplier<? extends Collection<Pod>> desired,
      Function<String, Optional<PodStatus>> statusByUid,
      Function<String, Map<String, String>> annotationsByUid) {
    this.desired = desired;
    this.statusByUid = statusByUid;
    this.annotationsByUid = annotationsByUid;
  }

  @Override
  public List<Pod> get() {
    List<Pod> out = new ArrayList<>();
    for (Pod p : desired.get()) {
      PodStatus status =
          statusByUid
              .apply(p.getMetadata().getUid())
              .orElseGet(() -> new PodStatusBuilder().withPhase("Pending").build());
      // A new Pod around the desired one's metadata and spec, which it shares: they are only
      // read (serialized). A deep copy of each pod made a cold /pods at 110 pods take tenths of
      // a second.
      ObjectMeta meta = p.getMetadata();
      Map<String, String> ours = annotationsByUid.apply(meta.getUid());
      if (!ours.isEmpty()) { // rare: only this pod's metadata is copied
        meta = new ObjectMetaBuilder(meta).addToAnnotations(ours).build();
      }
      out.add(new Pod(p.getApiVersion(), p.getKind(), meta, p.getSpec(), status));
    }
    return out;
  }

  /**
   * {@code /pods}' body: a v1 PodList of these pods, which it holds as they are. Not a {@code
   * PodListBuilder}: that copies every pod, nested builder by nested builder.
   */
  public static PodList podList(List<Pod> pods) {
    PodList list = new PodList();
    list.setApiVersion("v1");
    list.setKind("PodList");
    list.setMetadata(new ListMeta());
    list.setItems(pods);
    return list;
  }
}
