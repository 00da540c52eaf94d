/**
 * Node-pressure eviction, as upstream's {@code pkg/kubelet/eviction} (v1.20): signals read from the
 * host, thresholds, node pressure conditions, reclaim through garbage collection, and evictions of
 * ranked pods; the admission of pods under pressure.
 */
package io.jkubelet.agent.eviction;
