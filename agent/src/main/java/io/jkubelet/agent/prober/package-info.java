/**
 * Container probes (liveness, readiness, startup): one worker per probe ticks on the manager's
 * {@link io.jkubelet.agent.util.Scheduler}, runs its attempts on virtual threads, applies
 * thresholds, and publishes result changes; ported from the kubelet's {@code pkg/kubelet/prober}
 * (v1.20). The edge is {@link io.jkubelet.agent.prober.ProbeManager}: {@code health} for the pod
 * status and {@code failedProbe}, a {@link io.jkubelet.agent.prober.ProbeType}, for the kills.
 */
package io.jkubelet.agent.prober;
