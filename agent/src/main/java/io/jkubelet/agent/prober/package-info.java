/**
 * Container probes (liveness, readiness, startup): one worker per probe runs attempts on a shared
 * scheduler, applies thresholds, and publishes result changes; ported from the kubelet's {@code
 * pkg/kubelet/prober} (v1.20). Not wired into the agent yet.
 */
package io.jkubelet.agent.prober;
