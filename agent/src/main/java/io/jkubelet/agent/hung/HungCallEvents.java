package io.jkubelet.agent.hung;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.jkubelet.agent.events.EventRecorder;
import io.jkubelet.agent.events.EventType;
import io.jkubelet.agent.events.Reasons;
import io.jkubelet.agent.events.Refs;
import io.jkubelet.config.Durations;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator sees of a hung call: a Warning {@code RuntimeCallHung} on the container's pod
 * (on the container itself when its name is known), and a line in the log; a call about no pod is
 * logged only, since the node's readiness tells of an engine that does not answer. When the call
 * returns at last, the log says so and {@code reinspect} is told, so that the pod's status no
 * longer keeps the last known state. Stateless; thread-safe as the recorder.
 */
public final class HungCallEvents implements GuardedRuntime.Listener {
  private static final Logger log = LoggerFactory.getLogger(HungCallEvents.class);

  private final EventRecorder recorder;
  private final Clock clock;
  private final Consumer<io.jkubelet.agent.runtime.PodRef> reinspect;

  public HungCallEvents(
      EventRecorder recorder, Clock clock, Consumer<io.jkubelet.agent.runtime.PodRef> reinspect) {
    this.recorder = recorder;
    this.clock = clock;
    this.reinspect = reinspect;
  }

  @Override
  public void hung(HungCall call) {
    String message = call.message(clock.instant()) + "; the node goes on with everything else";
    if (call.pod() == null) {
      log.warn("Runtime: {}", message);
      return;
    }
    log.warn("Runtime: pod {}/{}: {}", call.pod().namespace(), call.pod().name(), message);
    ObjectReference ref = Refs.pod(call.pod().namespace(), call.pod().name(), call.pod().uid());
    if (!call.container().isEmpty()) {
      ref.setFieldPath("spec.containers{" + call.container() + "}");
    }
    recorder.event(ref, EventType.Warning, Reasons.RUNTIME_CALL_HUNG, message);
  }

  @Override
  public void returned(HungCall call, Duration took) {
    log.info("Runtime: {} returned after {}", call.what(), Durations.format(took));
    if (call.pod() != null) {
      reinspect.accept(call.pod());
    }
  }
}
