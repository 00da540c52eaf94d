/**
 * Prometheus metrics: upstream's kubelet metrics (recorded by decorators of the runtime and the pod
 * sync, and a PLEG listener), jkubelet's own counters read by collectors at scrape time, and the
 * three registries that {@code /metrics}, {@code /metrics/probes} and {@code /metrics/resource}
 * serve in the text format.
 */
package io.jkubelet.agent.metrics;
